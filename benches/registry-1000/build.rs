//! Writes 1,000 `#[tool]` functions of one to three arguments into `OUT_DIR/tools.rs`.

use std::fmt::Write as _;

fn main() {
    let mut source = String::new();
    for i in 0..1000 {
        let arguments = match i % 3 {
            0 => "a: i64".to_owned(),
            1 => "a: i64, text: String".to_owned(),
            _ => "a: i64, text: String, limit: Option<u32>".to_owned(),
        };
        let effect = if i % 2 == 0 { "read_only, " } else { "" };
        writeln!(
            source,
            "/// Generated tool number {i}.\n///\n/// # Arguments\n/// * `a` - A number.\n\
             #[tool({effect}name = \"tool_{i:04}\", tags(\"generated\"))]\n\
             #[allow(unused_variables)]\n\
             fn tool_{i:04}({arguments}) -> String {{ a.to_string() }}\n"
        )
        .expect("writing to a String");
    }
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    std::fs::write(format!("{out}/tools.rs"), source).expect("OUT_DIR is writable");
    println!("cargo::rerun-if-changed=build.rs");
}
