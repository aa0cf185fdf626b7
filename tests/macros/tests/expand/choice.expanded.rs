use mcp_runtime::prelude::*;
#[serde(rename_all = "lowercase")]
enum Size {
    #[elicit(title = "Small (S)")]
    Small,
    Medium,
    #[serde(rename = "XL")]
    ExtraLarge,
}
#[doc(hidden)]
#[allow(unused_qualifications)]
const _: () = {
    use ::mcp_runtime::__private as _mcp;
    #[automatically_derived]
    impl _mcp::ElicitChoice for Size {
        const OPTIONS: &'static [_mcp::ChoiceOption] = &[
            _mcp::ChoiceOption {
                value: "small",
                title: _mcp::Option::Some("Small (S)"),
            },
            _mcp::ChoiceOption {
                value: "medium",
                title: _mcp::Option::None,
            },
            _mcp::ChoiceOption {
                value: "XL",
                title: _mcp::Option::None,
            },
        ];
        fn from_value(__mcp_value: &::core::primitive::str) -> _mcp::Option<Self> {
            match __mcp_value {
                "small" => _mcp::Option::Some(Self::Small),
                "medium" => _mcp::Option::Some(Self::Medium),
                "XL" => _mcp::Option::Some(Self::ExtraLarge),
                _ => _mcp::Option::None,
            }
        }
        fn value(&self) -> &'static ::core::primitive::str {
            match self {
                Self::Small => "small",
                Self::Medium => "medium",
                Self::ExtraLarge => "XL",
            }
        }
    }
};
fn main() {}
