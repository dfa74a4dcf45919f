use tool_core::tools;

struct Server;

#[tools]
impl Server {
    /// Say hello.
    #[tool(red_only)]
    fn hello(&self, name: String) -> String {
        name
    }
}

fn main() {}
