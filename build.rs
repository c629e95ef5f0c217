// Compiles the C interface to CaDiCaL's terminator and external propagator
// (csrc/propagator.cpp); the solver itself is compiled and linked by the `cadical` crate.
fn main() {
    println!("cargo:rerun-if-changed=csrc/propagator.cpp");
    println!("cargo:rerun-if-changed=csrc/cadical/cadical.hpp");
    cc::Build::new().cpp(true).std("c++17").file("csrc/propagator.cpp").include("csrc").opt_level(3).define("NDEBUG", None).warnings(false).compile("weakc_cadical");
}
