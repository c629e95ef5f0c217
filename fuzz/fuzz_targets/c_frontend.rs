//! `weakc::fuzzing::c_frontend` on arbitrary bytes (see there).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| weakc::fuzzing::c_frontend(data));
