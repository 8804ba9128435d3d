package catalog

// Features is the feature catalog of DESIGN.md in matrix column order. A
// case names exactly one; reports use this order for their columns.
var Features = []string{
	"models.list",
	"chat.basic", "chat.stream", "chat.errors",
	"messages.basic", "messages.stream", "messages.max_tokens", "messages.image_input", "messages.errors",
	"images.generate", "images.generate.quality", "images.generate.default_size",
	"images.generate.default_model", "images.generate.stream",
	"images.edit.json", "images.edit.json_two_refs", "images.edit.url_ref", "images.edit.json_mask",
	"images.edit.multipart", "images.edit.multipart_two_refs", "images.edit.multipart_mask",
	"images.edit.size", "images.edit.quality", "images.edit.transparent", "images.edit.opaque_jpeg",
	"images.edit.webp", "images.edit.compression", "images.edit.n", "images.edit.stream",
	"images.edit.errors",
	"images.generate.explore", "images.edit.explore",
	"responses.basic",
}

// RequirePublicImageURL is the precondition of cases that send
// {{ publicImageURL }}: without GWCONFORM_PUBLIC_IMAGE_URL they skip.
const RequirePublicImageURL = "public_image_url"

// Requirements lists every known value of Case.Requires.
var Requirements = []string{RequirePublicImageURL}

// Protocols lists the SSE protocols a case may expect.
var Protocols = []Protocol{ProtocolChat, ProtocolMessages, ProtocolImageGeneration, ProtocolImageEdit, ProtocolResponses}

// protocolPaths is the endpoint each protocol belongs to; lint rejects a
// stream expectation on the wrong endpoint.
var protocolPaths = map[Protocol]string{
	ProtocolChat:            "/v1/chat/completions",
	ProtocolMessages:        "/v1/messages",
	ProtocolImageGeneration: "/v1/images/generations",
	ProtocolImageEdit:       "/v1/images/edits",
	ProtocolResponses:       "/v1/responses",
}

// ImageFormats are the output formats of the spec (2.2).
var ImageFormats = []string{"png", "jpeg", "webp"}

// Auths lists the valid values of Request.Auth.
var Auths = []Auth{AuthKey, AuthNone, AuthInvalid}
