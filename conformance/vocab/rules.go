package vocab

// StreamRules are the ids of the stream rules (package streams' Rule
// constants): a stream check's reason names its rule in parentheses at the
// end of its message ("... (chat.done-missing)"). The table of clients cites
// them, and its reader refuses an id that is not here; a test of package
// streams holds this list to its constants.
var StreamRules = []string{
	"stream.incomplete",
	"stream.too-large",
	"stream.unterminated",
	"stream.data-split",
	"stream.events-joined",
	"chat.not-json",
	"chat.error",
	"chat.done-missing",
	"chat.done-last",
	"chat.id-changed",
	"chat.cumulative-deltas",
	"chat.id-missing",
	"chat.finish-reason-cleared",
	"chat.model-missing",
	"chat.usage-repeated",
	"chat.error-member",
	"chat.member-type",
	"messages.not-json",
	"messages.type-missing",
	"messages.untyped-event",
	"messages.event-name-mismatch",
	"messages.start-first",
	"messages.order",
	"messages.error-event",
	"messages.stop-last",
	"messages.stop-missing",
	"messages.stop-reason-missing",
	"messages.no-text-delta",
	"messages.event-name-missing",
	"messages.block-index",
	"messages.stop-reason-not-in-delta",
	"messages.message-delta-missing",
	"messages.payload-type-missing",
	"messages.event-outside-start-stop",
	"messages.cumulative-deltas",
	"messages.start-message-missing",
	"messages.block-type-missing",
	"messages.delta-type-not-text",
	"messages.delta-usage-missing",
	"images.not-json",
	"images.type-missing",
	"images.untyped-event",
	"images.event-name-mismatch",
	"images.wrong-family",
	"images.unknown-event",
	"images.error-event",
	"images.preview-index-missing",
	"images.too-many-previews",
	"images.preview-after-completed",
	"images.b64-missing",
	"images.completed-missing",
	"images.completed-count",
	"images.preview-index-order",
	"images.error-member",
}

// Checks are the checks a reason of a judged call names (Reason.Check) as
// package check writes them: what a client's dependency may cite.
var Checks = []string{"status", "content_type", "schema", "json", "sse", "sse-strict", "image", "transport", "multipart", "path", "raw", "variant", "differs_from"}
