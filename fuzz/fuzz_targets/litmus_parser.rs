//! `weakc::fuzzing::litmus_parser` on arbitrary bytes (see there).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| weakc::fuzzing::litmus_parser(data));
