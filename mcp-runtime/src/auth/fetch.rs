//! Reading an authorization server's answers within a size bound: its
//! metadata, its keys, its introspection answers.

/// The largest answer accepted from an authorization server, in bytes.
pub(super) const MAX_ANSWER_BYTES: usize = 256 * 1024;

/// The body of `response`, refused as soon as it (or its announced length)
/// passes [`MAX_ANSWER_BYTES`], so an oversized answer is never held whole.
pub(super) async fn body_within_limit(mut response: reqwest::Response) -> Result<Vec<u8>, String> {
    let too_large = || format!("the answer is larger than {MAX_ANSWER_BYTES} bytes");
    if response
        .content_length()
        .is_some_and(|length| length > MAX_ANSWER_BYTES as u64)
    {
        return Err(too_large());
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| e.to_string())? {
        if body.len() + chunk.len() > MAX_ANSWER_BYTES {
            return Err(too_large());
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}
