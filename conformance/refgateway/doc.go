// Package refgateway is the reference gateway of gwconform: a faithful
// implementation of the whole Model-Gateway API (spec sections 1–9) that runs
// in-process for the suite's tests, on a port for client developers
// (`gwconform serve`), and as a fault injector proving every check can fail.
//
// # Endpoints
//
//	GET  /v1/models              the caller's model list (2.1)
//	POST /v1/chat/completions    JSON or SSE (2.3, 4.2, 6.2), text key
//	POST /v1/messages            JSON or SSE (2.4, 4.3, 6.3), messages and alt keys
//	POST /v1/images/generations  JSON or SSE (2.2, 4.4, 6.1), image key
//	POST /v1/images/edits        JSON or multipart, JSON or SSE (4.5), image key
//	POST /v1/responses           explore tier: follows the OpenAI Responses API, text key
//
// # Authentication
//
// Every path needs `Authorization: Bearer <key>`; /v1/messages also takes the
// Anthropic header `x-api-key`. A missing or unknown key gets 401. An image
// request with a key other than the image key gets 403 (5.2: image endpoints
// require a key with image permission; the spec shows no status). A model
// outside the caller's list (or of another family than the endpoint serves)
// gets 404. Image requests with the model omitted use gen-image-2.5-flare.
//
// # Model names
//
// The gateway names its models as the spec does (gen-5.5, msg-sonnet-5,
// alt-flash), unless Config.ModelNames or Config.VendorWords (gwconform
// serve --model-name, --vendor-words) rename them, as a real gateway does:
// gen → gpt serves gen-5.5 as gpt-5.5. A renamed model is listed, requested
// and answered (the model of a chat completion, a message, a response and
// their streams) under its new name only, and behaves as its spec id does:
// the same rules, the same text and pictures. The spec id is then unknown
// (404), as is a retired id in either form.
//
// # Error bodies
//
// The spec leaves error bodies unshown (section 7). The gateway uses the shape
// of the official API each path imitates, so the official SDKs parse them:
//
//   - /v1/messages (Anthropic):
//     {"type":"error","error":{"type":"invalid_request_error","message":"…"},"request_id":"req_…"}
//     with error.type authentication_error (401), permission_error (403), not_found_error (404),
//     request_too_large (413), invalid_request_error (other 4xx), api_error (500).
//   - every other path (OpenAI):
//     {"error":{"message":"…","type":"invalid_request_error","param":"prompt"|null,"code":…|null}}
//     with code invalid_api_key (401), model_not_found (404), request_too_large (413).
//
// # Limits
//
// Request bodies are limited to Config.MaxBodyBytes (DefaultMaxBodyBytes,
// 64 MiB): a larger declared Content-Length is refused with 413 before any of
// the body is read, an undeclared one is cut off at the limit (413). Input
// images (references, masks, message images) may have at most 16 megapixels;
// their declared size is checked before decoding. Images n is 1 to 4.
// Malformed JSON, multipart, base64 or image data gets 400. Every client
// error is a 4xx with a JSON body; a 5xx would be a bug (a recover handler
// answers 500 as a last resort and the tests assert it never runs).
//
// # Determinism
//
// Text is derived from the model and prompt (one word is one token; a prompt
// naming "N words" gets N). Images are rendered by package imagery from the
// prompt, size, quality, background and (for edits) the reference and mask
// bytes; the same request gives the same pixels, and the number of stream
// previews (at most partial_images, fewer on about one request in four) is
// fixed by the same hash. IDs (chatcmpl-, msg_, generation_id) are random.
//
// # Faults
//
// Faults (see Faults and --list-faults) switch on deviations from the spec,
// each breaking one rule: for every request through Config.Faults, or per
// request through the FaultHeader header (comma-separated names; an unknown
// name gets 400).
//
// The handlers implement the spec alone, one file per endpoint. A fault acts
// only through the hook points hooks.go lists: a request routed, a
// validation rule it overrides, a listed model served or not, the model
// serving an image request without model, an image job or a message's
// content found valid, a request accepted, a JSON body before it is
// written, each stream event, each output image, and a request without a
// valid key. The table in faults.go declares every fault once, with its
// rule, spec section and hooks.
package refgateway
