use mcp_runtime::prelude::*;
/// The teams that start with what was typed.
async fn teams(typed: &str, ctx: Ctx) -> Vec<String> {
    let _ = ctx;
    ::alloc::boxed::box_assume_init_into_vec_unsafe(
        ::alloc::intrinsics::write_box_via_move(
            ::alloc::boxed::Box::new_uninit(),
            [typed.to_owned()],
        ),
    )
}
///The `#[completion]` handler of [`teams()`]: register it with `.handler::<teams>()`.
#[doc(hidden)]
#[allow(non_camel_case_types)]
struct teams {}
#[doc(hidden)]
#[allow(unused_qualifications)]
const _: () = {
    use ::mcp_runtime::__private as _mcp;
    impl _mcp::CompletionHandler for teams {
        fn complete(
            &self,
            __mcp_reference: _mcp::CompletionReference,
            __mcp_argument: _mcp::CompletionArgument,
            __mcp_context: _mcp::Option<_mcp::CompletionContext>,
            __mcp_ctx: _mcp::Ctx,
        ) -> _mcp::CompletionFuture<'_> {
            let mut __mcp_parts = _mcp::CallParts::completion(
                __mcp_reference,
                __mcp_argument,
                __mcp_context,
                __mcp_ctx,
            );
            _mcp::Box::pin(async move {
                let __mcp_arg0: _mcp::String = __mcp_parts.completion_value()?;
                _mcp::completion_param::<Ctx>();
                let __mcp_arg1: Ctx = _mcp::FromCall::from_call(&mut __mcp_parts)?;
                let __mcp_output = teams(&__mcp_arg0, __mcp_arg1).await;
                _mcp::IntoCompleteResult::into_complete_result(__mcp_output)
            })
        }
        fn completes(&self) -> _mcp::Option<_mcp::CompletionTarget> {
            _mcp::Option::Some(
                _mcp::CompletionTarget::template("desk://teams/{team}", "team"),
            )
        }
        fn needs_shared(&self) -> _mcp::Vec<_mcp::SharedNeed> {
            _mcp::needs_shared(&[<Ctx as _mcp::FromCall>::SHARED])
        }
    }
    impl _mcp::Register for teams {
        fn register(builder: _mcp::ServerBuilder) -> _mcp::ServerBuilder {
            builder.completion(teams {})
        }
    }
};
fn main() {}
