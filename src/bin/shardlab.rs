//! The `shardlab` command-line interface. The shell interpreter arrives with the shell
//! issue; for now the binary reports the version.

fn main() {
    println!("shardlab {}", env!("CARGO_PKG_VERSION"));
}
