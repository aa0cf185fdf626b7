use mcp_runtime::prelude::*;
struct Desk {
    greeting: String,
}
impl Desk {
    /// Greets the caller.
    async fn greet(&self) -> String {
        self.greeting.clone()
    }
}
#[doc(hidden)]
#[allow(unused_qualifications)]
const _: () = {
    use ::mcp_runtime::__private as _mcp;
    #[doc(hidden)]
    #[allow(non_camel_case_types)]
    struct __mcp_Desk_greet(_mcp::Arc<Desk>);
    impl _mcp::ToolHandler for __mcp_Desk_greet {
        fn descriptor(&self) -> _mcp::Tool {
            _mcp::ToolSpec {
                name: "greet",
                description: "Greets the caller.",
                input: &[],
                output: <String as _mcp::IntoToolResult>::output_schema,
                .._mcp::ToolSpec::DEFAULT
            }
                .build()
        }
        fn call(&self, _: _mcp::ToolArguments, _: _mcp::Ctx) -> _mcp::ToolFuture<'_> {
            let __mcp_this = _mcp::Arc::clone(&self.0);
            _mcp::Box::pin(async move {
                let __mcp_output = __mcp_this.greet().await;
                <String as _mcp::IntoToolResult>::into_tool_outcome(__mcp_output)
            })
        }
    }
    impl _mcp::Handlers for Desk {
        fn register(
            this: _mcp::Arc<Self>,
            builder: _mcp::ServerBuilder,
        ) -> _mcp::ServerBuilder {
            let _ = &this;
            builder.tool(__mcp_Desk_greet(_mcp::Arc::clone(&this)))
        }
    }
};
fn main() {}
