use tool_core::tools;

struct Server;

trait Greet {
    fn greet(&self) -> String;
}

#[tools]
impl Greet for Server {
    /// Greet.
    #[tool(read_only)]
    fn greet(&self) -> String {
        "hi".into()
    }
}

fn main() {}
