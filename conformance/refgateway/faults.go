package refgateway

import (
	"fmt"
	"slices"
	"strings"
)

// FaultHeader names the request header that switches faults on for one
// request: a comma-separated list of fault names. It adds to Config.Faults.
const FaultHeader = "X-Gwconform-Fault"

// Fault is one switchable deviation from the spec. Each fault breaks exactly
// one rule; the suite's own tests switch it on and expect a check to fail.
type Fault struct {
	Name string // switch name, for --fault and FaultHeader
	Rule string // the spec sentence it breaks, and where the deviation shows
	Spec string // spec section
}

// Fault names. Each is applied only where its rule lives; elsewhere the
// gateway answers normally.
const (
	fErrorField         = "error-field"
	fEmptyData          = "empty-data"
	fBadBase64          = "bad-base64"
	fUndecodable        = "undecodable-image"
	fWrongFormat        = "wrong-format"
	fAlphaDropped       = "alpha-dropped"
	fSizeMismatch       = "size-mismatch"
	fFewerImages        = "fewer-images"
	fReferenceIgnored   = "reference-ignored"
	fChatNoDone         = "chat-no-done"
	fMessagesNoStop     = "messages-no-stop"
	fMessagesOutOfOrder = "messages-out-of-order"
	fImageNoCompleted   = "image-stream-no-completed"
	fPreviewOverflow    = "preview-overflow"
	fWrongEventFamily   = "wrong-event-family"
	fStreamCut          = "stream-cut"
	fWrongContentType   = "wrong-content-type"
	fAcceptInvalid      = "accept-invalid"
	fWrong404           = "wrong-404"
	fModelMissing       = "model-missing"
	fMissingField       = "missing-field"
	fWrongType          = "wrong-type"
	fMaxTokensIgnored   = "max-tokens-ignored"

	// Strict-tier faults: each breaks a rule the official clients depend on
	// but the spec does not state, so only strict cases catch them.
	fChatIDChanges     = "chat-id-changes"
	fUnnamedEvents     = "messages-unnamed-events"
	fBlockIndexGap     = "block-index-gap"
	fPreviewIndexOrder = "preview-index-order"
)

var faultList = []Fault{
	{fErrorField, "A 200 image result carries an `error` field (clients must treat it as failure): images JSON responses get an error object beside a normal body.", "2.2, 7"},
	{fEmptyData, "A 200 image result has an empty `data` list (clients must treat it as failure): images JSON responses return data: [].", "2.2, 7"},
	{fBadBase64, "`data[].b64_json` / `b64_json` is base64 of the encoded image: it is not valid base64 (images JSON and completed stream events).", "2.2, 6.1"},
	{fUndecodable, "Completion is confirmed only by a decodable final image: b64_json is valid base64 of bytes that are no image (images JSON and completed stream events).", "6.1, 2.2"},
	{fWrongFormat, "Decoded content matches the requested `output_format`: the image bytes are of another format (png↔jpeg, webp→png) while `output_format` still names the requested one.", "2.2"},
	{fAlphaDropped, "Transparent output carries a real alpha channel: with background transparent the image is fully opaque while `background` still says transparent.", "4.5"},
	{fSizeMismatch, "`size` is `<width>x<height>` of the result: the decoded image is 512 pixels narrower and lower than `size` says.", "2.2"},
	{fFewerImages, "`data` has one entry per returned image, n of them: with n ≥ 2, one image fewer than n (JSON data and stream completed events).", "2.2, 4.4, 4.5"},
	{fReferenceIgnored, "Edits derive from their reference images: the edit result is rendered as if no reference and no mask were given.", "4.5"},
	{fChatNoDone, "The chat stream ends with the marker `data: [DONE]`: it is omitted.", "6.2"},
	{fMessagesNoStop, "Messages stream events end with `message_stop`: it is omitted.", "6.3"},
	{fMessagesOutOfOrder, "Messages stream events come in the order message_start, content-block events, message_delta, message_stop: message_delta comes before the content-block events.", "6.3"},
	{fImageNoCompleted, "An image stream carries a completed event with a decodable final image: previews only, no completed event.", "6.1"},
	{fPreviewOverflow, "An image stream has at most `partial_images` previews: it sends one more preview than requested.", "6.1, 8"},
	{fWrongEventFamily, "Generation streams use image_generation.* events and edit streams image_edit.*: each uses the other family's event types.", "6.1"},
	{fStreamCut, "Raw SSE events are separated by blank lines and a client reads to the end of the stream: the stream ends in the middle of an event (chat, messages and image streams).", "6"},
	{fWrongContentType, "JSON responses use `Content-Type: application/json` and streams `text/event-stream`: success JSON is sent as text/plain and streams as application/json.", "4, 6"},
	{fAcceptInvalid, "The 400 rows of the error table are rejected with 400: each is answered 200 with a normal body (missing model/messages/prompt/reference, file_id, partial_images -1 or 4).", "7"},
	{fWrong404, "A retired or unknown model id returns 404: it returns 400.", "7, 9"},
	{fModelMissing, "The model list names the verified models for the key: the first verified model of the key (gen-5.5, msg-sonnet-5, gen-image-2, alt-flash) is left out.", "1, 2.1"},
	{fMissingField, "Required response fields are present: one is removed (models `object`, chat `choices[].message.content`, chat chunk `object`, message `type`, messages event `type`, image result `created`, image event `type`).", "2.1, 2.2, 2.3, 2.4, 6"},
	{fWrongType, "Response fields have their documented types: one has the wrong type (models `data[].owned_by` number, chat `choices[].index` string, message `usage.input_tokens` string, image `created` string, image event `partial_image_index`/`b64_json` of another type).", "2.1, 2.2, 2.3, 2.4, 6"},
	{fChatIDChanges, "Strict (official OpenAI accumulator): every chunk of one chat stream carries the same id: each chunk gets a new one.", "6.2"},
	{fUnnamedEvents, "Strict (official Anthropic SDKs dispatch on the event name): messages stream events carry event: lines: none is sent.", "6.3"},
	{fBlockIndexGap, "Strict (official Anthropic accumulator indexes blocks by position): content-block indexes are dense from 0: the text block has index 1.", "6.3"},
	{fPreviewIndexOrder, "Strict: partial_image_index rises from 0 by 1: previews are numbered from 1.", "6.1"},
	{fMaxTokensIgnored, "`max_tokens` is an upper bound on output length: the output runs past it and ends with finish_reason stop / stop_reason end_turn.", "4.2, 4.3, 8"},
}

// Faults lists every fault switch, sorted by name.
func Faults() []Fault {
	out := slices.Clone(faultList)
	slices.SortFunc(out, func(a, b Fault) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func knownFault(name string) bool {
	return slices.ContainsFunc(faultList, func(f Fault) bool { return f.Name == name })
}

// faultSet is the set of faults active on one request.
type faultSet map[string]bool

func (fs faultSet) has(name string) bool { return fs[name] }

// parseFaultNames splits a comma-separated list and rejects unknown names.
func parseFaultNames(list []string) (faultSet, error) {
	fs := faultSet{}
	for _, item := range list {
		for name := range strings.SplitSeq(item, ",") {
			name = strings.TrimSpace(name)
			if name == "" {
				continue
			}
			if !knownFault(name) {
				return nil, fmt.Errorf("unknown fault %q (see --list-faults)", name)
			}
			fs[name] = true
		}
	}
	return fs, nil
}
