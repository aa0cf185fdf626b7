//! What a task call may make the server keep, and who it counts against:
//! the bounds on a task's kept arguments and `_meta`, and the allowance a
//! new record counts toward until it expires (an authenticated caller's,
//! or an unauthenticated client's within the bound they all share).

use std::net::{IpAddr, Ipv6Addr};

use serde_json::json;

use super::{Allowance, TaskStoreError, Tasks};
use crate::receive_context::ReceiveContext;
use crate::schema::{ErrorObject, McpError, codes};

/// What a task call counts toward: an authenticated caller by its
/// subject; an unauthenticated client by where its requests come from
/// (its IP address over HTTP, an IPv6 one by its /64 network; the process
/// otherwise: stdio has one client), within the bound all of them share.
pub(super) fn allowance_of(settings: &Tasks, receive: &ReceiveContext) -> Allowance {
    let subject = receive.subject();
    if !subject.is_empty() {
        return Allowance {
            key: format!("caller:{subject}"),
            max: settings.max_tasks_per_caller,
            shared_max: None,
        };
    }
    let key = match receive.peer_ip.map(|ip| ip.to_canonical()) {
        Some(IpAddr::V4(ip)) => format!("anonymous:ip:{ip}"),
        Some(IpAddr::V6(ip)) => {
            let network = u128::from(ip) & !((1u128 << 64) - 1);
            format!("anonymous:ip:{}/64", Ipv6Addr::from(network))
        }
        None => "anonymous:process".to_owned(),
    };
    Allowance {
        key,
        max: settings.max_tasks_per_anonymous_client,
        shared_max: Some(settings.max_anonymous_tasks),
    }
}

/// The error a refused creation is answered with: a cap reached names the
/// cap, its value and its setter.
pub(super) fn refused(settings: &Tasks, allowance: &Allowance, error: TaskStoreError) -> McpError {
    match error {
        TaskStoreError::Full(why) => super::start::busy(&format!("no task was created: {why}")),
        TaskStoreError::OverAllowance(held) => {
            let (who, max, setter) = match allowance.shared_max {
                None => (
                    "this caller",
                    settings.max_tasks_per_caller,
                    "max_tasks_per_caller",
                ),
                Some(_) => (
                    "this unauthenticated client",
                    settings.max_tasks_per_anonymous_client,
                    "max_tasks_per_anonymous_client",
                ),
            };
            at_cap(&format!("{who} holds {held} tasks"), max, setter)
        }
        TaskStoreError::OverShared(held) => at_cap(
            &format!("unauthenticated clients together hold {held} tasks"),
            settings.max_anonymous_tasks,
            "max_anonymous_tasks",
        ),
        unavailable @ TaskStoreError::Unavailable(_) => super::run::unavailable(unavailable),
    }
}

/// A task cap reached: `-32603` ("Server busy") naming the cap, its value
/// and its setter, in the message and in `data`.
fn at_cap(held: &str, max: usize, setter: &str) -> McpError {
    McpError::Other(ErrorObject {
        code: codes::INTERNAL_ERROR,
        message: format!(
            "Server busy: no task was created: {held}, the most allowed is {max} \
             (Tasks::{setter}); finished tasks count until they expire"
        ),
        data: Some(json!({"limit": setter, "max": max})),
    })
}

/// `-32602` naming the bound and its setter when `len` is past `max`.
pub(super) fn within(len: usize, what: &str, max: usize, setter: &str) -> Result<(), McpError> {
    if len <= max {
        return Ok(());
    }
    Err(McpError::invalid_params(format!(
        "a task keeps its {what} until it finishes: {len} bytes of JSON, more than the \
         {max} it may keep (Tasks::{setter})"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::receive_context::TransportKind;

    fn anonymous_from(ip: Option<IpAddr>) -> String {
        let mut receive = ReceiveContext::new(TransportKind::Http);
        receive.peer_ip = ip;
        allowance_of(&Tasks::default(), &receive).key
    }

    #[test]
    fn unauthenticated_clients_are_counted_by_address() {
        let v4 = anonymous_from(Some("10.1.2.3".parse().unwrap()));
        assert_eq!(v4, "anonymous:ip:10.1.2.3");
        // One /64 is one client; a v4-mapped address is the v4 one.
        let a = anonymous_from(Some("2001:db8:1:2::1".parse().unwrap()));
        let b = anonymous_from(Some("2001:db8:1:2:ffff::9".parse().unwrap()));
        assert_eq!(a, b);
        assert_eq!(a, "anonymous:ip:2001:db8:1:2::/64");
        let mapped = anonymous_from(Some("::ffff:10.1.2.3".parse().unwrap()));
        assert_eq!(mapped, v4);
        assert_eq!(anonymous_from(None), "anonymous:process");
        let allowance = allowance_of(
            &Tasks::default(),
            &ReceiveContext::new(TransportKind::Stdio),
        );
        assert_eq!(
            allowance.shared_max,
            Some(super::super::DEFAULT_MAX_ANONYMOUS_TASKS)
        );
    }

    #[test]
    fn a_refusal_names_the_cap_and_its_setter() {
        let settings = Tasks::default().max_tasks_per_anonymous_client(3);
        let receive = ReceiveContext::new(TransportKind::Stdio);
        let allowance = allowance_of(&settings, &receive);
        let error = refused(&settings, &allowance, TaskStoreError::OverAllowance(3)).to_object();
        assert_eq!(error.code, codes::INTERNAL_ERROR);
        assert!(
            error.message.contains("max_tasks_per_anonymous_client"),
            "{}",
            error.message
        );
        assert!(
            error.message.contains("at most 3") || error.message.contains("is 3"),
            "{}",
            error.message
        );
        let too_big = within(10, "arguments", 9, "max_kept_arguments_bytes").unwrap_err();
        assert_eq!(too_big.to_object().code, codes::INVALID_PARAMS);
        assert!(
            too_big
                .to_object()
                .message
                .contains("Tasks::max_kept_arguments_bytes")
        );
    }
}
