use tool_core::tools;

struct Server;

#[tools]
impl Server {
    /// Echo a value.
    #[tool(read_only)]
    fn echo<T: ToString>(&self, value: String) -> String {
        value
    }
}

fn main() {}
