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

// PreconditionPublicImageURL is the precondition of cases that send
// {{ publicImageURL }}: without GWCONFORM_PUBLIC_IMAGE_URL they skip.
const PreconditionPublicImageURL = "public_image_url"

// Preconditions lists every known value of Case.Requires.
var Preconditions = []string{PreconditionPublicImageURL}

// Protocols lists the SSE protocols a case may expect.
var Protocols = []Protocol{ProtocolChat, ProtocolMessages, ProtocolImageGeneration, ProtocolImageEdit, ProtocolResponses}

// protocolInfo is what the catalog knows of a stream protocol (spec 6):
// the endpoint it belongs to, and which sse fields of a case apply to it.
// lint rejects a stream expectation on the wrong endpoint, or a field the
// protocol has not.
type protocolInfo struct {
	path         string
	image        bool // image events: sse.images, sse.max_previews
	text         bool // text fragments: sse.min_text
	stopReason   bool // sse.stop_reason (messages)
	finishReason bool // sse.finish_reason (chat)
}

// protocols is the one table of the stream protocols.
var protocols = map[Protocol]protocolInfo{
	ProtocolChat:            {path: "/v1/chat/completions", text: true, finishReason: true},
	ProtocolMessages:        {path: "/v1/messages", text: true, stopReason: true},
	ProtocolImageGeneration: {path: "/v1/images/generations", image: true},
	ProtocolImageEdit:       {path: "/v1/images/edits", image: true},
	ProtocolResponses:       {path: "/v1/responses", text: true},
}

// ImageFormats are the output formats of the spec (2.2).
var ImageFormats = []string{"png", "jpeg", "webp"}

// Auths lists the valid values of Request.Auth.
var Auths = []Auth{AuthKey, AuthNone, AuthInvalid}
