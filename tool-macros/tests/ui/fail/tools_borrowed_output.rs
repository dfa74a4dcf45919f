use tool_core::tools;

struct Server {
    name: String,
}

#[tools]
impl Server {
    /// The server's name.
    #[tool(read_only)]
    fn name(&self) -> &str {
        &self.name
    }
}

fn main() {}
