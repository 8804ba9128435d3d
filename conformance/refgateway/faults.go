package refgateway

import (
	"encoding/json"
	"fmt"
	"image"
	"image/draw"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gwconform/gwconform/conformance/refgateway/imagery"
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

// Fault names. Each fault acts only where its rule lives; elsewhere the
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
	fListsIdentical     = "lists-identical"
	fImageAnyKey        = "image-any-key"
	fCreatedMillis      = "created-ms"
	fBackgroundMismatch = "background-mismatch"
	fBackgroundEcho     = "background-echo"
	fBackgroundAuto     = "background-auto"
	fAlphaSpeck         = "alpha-speck"
	fModelOther         = "model-other"
	fStopReasonOther    = "stop-reason-other"
	fFinishReasonOther  = "finish-reason-other"
	fTextInBlockStart   = "text-in-block-start"
	fMaxTokensHalved    = "max-tokens-halved"
	fFileIDIgnored      = "file-id-ignored"
	fImageRoutesMissing = "image-routes-missing"
	fChatRefusesAll     = "chat-refuses-all"
	fModelFixed         = "model-fixed"
	fMessagesUsageOver  = "messages-usage-over"
	fChatTextOver       = "chat-text-over"
	fChatUsageOver      = "chat-usage-over"
	fChatNoChoice       = "chat-no-choice"
	fDataSplit          = "data-split"
	fFileIDResolved     = "file-id-resolved"
	fCumulativeDeltas   = "cumulative-deltas"
	fErrorAfterStop     = "error-after-stop"

	// Strict-tier faults: each breaks a rule the official clients depend on
	// but the spec does not state, or a reading stricter than the verified
	// tier's, so only strict cases catch them.
	fChatIDChanges     = "chat-id-changes"
	fUnnamedEvents     = "messages-unnamed-events"
	fBlockIndexGap     = "block-index-gap"
	fPreviewIndexOrder = "preview-index-order"
	fCreatedHoursOff   = "created-hours-off"
	fModelDated        = "model-dated"
	fSuccess201        = "success-201"
	fEditDefaultImage2 = "edit-default-gen-image-2"
	fDefaultModel      = "default-model"
	fEventNameOther    = "event-name-other"
	fUntypedEvents     = "messages-untyped-events"
	fNoFinalBlankLine  = "no-final-blank-line"
	fEventAfterStop    = "event-after-stop"
	fStopReasonOnStop  = "stop-reason-on-stop"
	fMessagesNoDelta   = "messages-no-delta"
	fImageEventFields  = "image-event-fields"
	fStreamModelOther  = "stream-model-other"

	// Issue 17, point 3: sections intro to 4.4.
	fVerifiedModel404 = "verified-model-404"
	fStreamIgnored    = "stream-ignored"
	fStreamByDefault  = "stream-by-default"
	fSuccess300       = "success-300"
	fListDataObject   = "list-data-object"
	// Issue 34: a list that cannot be read, as four relays of six.
	fModelsList500    = "models-list-500"
	fModelObjectOther = "model-object-other"
	// Issue 36: the forms client libraries send beyond the verified rows.
	fStreamFalseStreams = "stream-false-streams"
	fTextBlocksRefused  = "text-blocks-refused"
	fModelIDRenamed     = "model-id-renamed"
	fChatObjectOther    = "chat-object-other"
	fChoicesObject      = "choices-object"
	fRoleOther          = "role-other"
	fContentString      = "content-string"
	fBlockTypeOther     = "block-type-other"
	fBlockTextParts     = "block-text-parts"
	fCacheTokensNull    = "cache-tokens-null"

	// Issue 17, point 3: sections 4.5 to 9.
	fEditNDefault2          = "edit-n-default-2"
	fEditSizeDefault1024    = "edit-size-default-1024"
	fQualityMaxRefused      = "edit-quality-max-refused"
	fImage2QualityRefused   = "edit-gen-image-2-quality-refused"
	fOpaqueRefused          = "edit-opaque-refused"
	fBackgroundAutoRefused  = "edit-background-auto-refused"
	fJPEGZeroRefused        = "jpeg-compression-0-refused"
	fWebPCompressionRefused = "webp-compression-refused"
	fPartialImages3Refused  = "partial-images-3-refused"
	fTwoRefsRefused         = "edit-json-two-refs-refused"
	fJSONMaskRefused        = "edit-json-mask-refused"
	fImageArrayIgnored      = "edit-image-array-ignored"
	fMultipartMaskRefused   = "edit-multipart-mask-refused"
	fReference1024Refused   = "reference-1024-refused"
	fMissingKeyServed       = "missing-key-served"

	// Issue 17, point 3: the rest.
	fGenerationIDOther     = "generation-id-other"
	fQualityOther          = "quality-other"
	fUsageMissing          = "usage-missing"
	fTotalTokensOff        = "total-tokens-off"
	fUsageInputStrings     = "usage-input-strings"
	fUsageOutputStrings    = "usage-output-strings"
	fGenNDefault2          = "gen-n-default-2"
	fGenSizeIgnored        = "gen-size-ignored"
	fGenSizeDefault1024    = "gen-size-default-1024"
	fGenQualityAutoRefused = "gen-quality-auto-refused"
	fGenModelRequired      = "gen-model-required"
	fStringContentRefused  = "string-content-refused"
	fAltImageRefused       = "alt-image-refused"
	fChatDataNotJSON       = "chat-data-not-json"
	fPreviewsCompleted     = "previews-as-completed"
	fTemperatureRefused    = "temperature-refused"
	fMaxTokensRefused      = "messages-max-tokens-refused"
	fAltMaxTokensOptional  = "alt-max-tokens-optional"
	fEditJSONRefused       = "edit-json-refused"
	fEditMultipartRefused  = "edit-multipart-refused"
	fPNGCompressionNeeded  = "png-compression-required"
	fNoBlankLines          = "no-blank-lines"
	fChatUnversioned       = "chat-without-v1"
	fMessagesPrefixed      = "messages-under-prefix"

	// Strict rules from the official readers (issue 17, point 2.9): each
	// breaks what an official SDK reader needs to assemble the result.
	fStartMessageMissing = "start-message-missing"
	fContentBlockMissing = "content-block-missing"
	fTextDeltaUntyped    = "text-delta-untyped"
	fDeltaUsageMissing   = "delta-usage-missing"
	fChatIDDropped       = "chat-id-dropped"
	fFinishReasonCleared = "finish-reason-cleared"
	fChunkModelDropped   = "chunk-model-dropped"
	fChatUsageRepeated   = "chat-usage-every-chunk"
	fErrorMemberNull     = "error-member-null"
)

// fault is one switch and what it does: its hooks (hooks.go) are the only
// places it acts.
type fault struct {
	Fault
	hooks
}

// faultTable declares every fault once: name, the rule it breaks, the spec
// section, and the hooks that break it.
var faultTable = []fault{
	{Fault{fErrorField, "A 200 image result carries an `error` field (clients must treat it as failure): images JSON responses get an error object beside a normal body.", "2.2, 7"},
		hooks{body: onImages(func(b map[string]any) {
			b["error"] = map[string]any{"message": "image generation failed", "type": "server_error", "code": "generation_failed"}
		})}},
	{Fault{fEmptyData, "A 200 image result has an empty `data` list (clients must treat it as failure): images JSON responses return data: [].", "2.2, 7"},
		hooks{body: onImages(func(b map[string]any) { b["data"] = []any{} })}},
	{Fault{fBadBase64, "`data[].b64_json` / `b64_json` is base64 of the encoded image: it is not valid base64 (images JSON and completed stream events).", "2.2, 6.1"},
		hooks{image: func(_ *imageJob, p *picture) {
			p.garble = append(p.garble, func(s string) string { return s[:len(s)/2] + "*#!?" + s[len(s)/2:] })
		}}},
	{Fault{fUndecodable, "Completion is confirmed only by a decodable final image: b64_json is valid base64 of bytes that are no image (images JSON and completed stream events).", "6.1, 2.2"},
		hooks{image: func(_ *imageJob, p *picture) {
			p.damage = append(p.damage, func(b []byte) []byte { return b[:len(b)/4] })
		}}},
	{Fault{fWrongFormat, "Decoded content matches the requested `output_format`: the image bytes are of another format (png↔jpeg, webp→png) while `output_format` still names the requested one.", "2.2"},
		hooks{image: func(_ *imageJob, p *picture) {
			p.format = map[string]string{"png": "jpeg", "jpeg": "png", "webp": "png"}[p.format]
		}}},
	{Fault{fAlphaDropped, "Transparent output carries a real alpha channel: with background transparent the image is fully opaque while `background` still says transparent.", "4.5"},
		hooks{image: func(_ *imageJob, p *picture) { p.scene.Transparent = false }}},
	{Fault{fSizeMismatch, "`size` is `<width>x<height>` of the result: the decoded image is 512 pixels narrower and lower than `size` says.", "2.2"},
		hooks{image: func(_ *imageJob, p *picture) {
			p.scene.Width, p.scene.Height = max(p.scene.Width-512, 1), max(p.scene.Height-512, 1)
		}}},
	{Fault{fFewerImages, "`data` has one entry per returned image, n of them: with n ≥ 2, one image fewer than n (JSON data and stream completed events).", "2.2, 4.4, 4.5"},
		hooks{image: func(j *imageJob, p *picture) { p.omit = j.n >= 2 && p.index == j.n-1 }}},
	{Fault{fReferenceIgnored, "Edits derive from their reference images: the edit result is rendered as if no reference and no mask were given.", "4.5"},
		hooks{image: func(_ *imageJob, p *picture) { p.scene.References, p.scene.Mask = nil, nil }}},
	{Fault{fChatNoDone, "The chat stream ends with the marker `data: [DONE]`: it is omitted.", "6.2"},
		hooks{event: dropEvent("[DONE]")}},
	{Fault{fMessagesNoStop, "Messages stream events end with `message_stop`: it is omitted.", "6.3"},
		hooks{event: dropEvent("message_stop")}},
	{Fault{fMessagesOutOfOrder, "Messages stream events come in the order message_start, content-block events, message_delta, message_stop: message_delta comes before the content-block events.", "6.3"},
		hooks{event: messageDeltaFirst}},
	{Fault{fImageNoCompleted, "An image stream carries a completed event with a decodable final image: previews only, no completed event.", "6.1"},
		hooks{event: dropEvent("image_generation.completed", "image_edit.completed")}},
	{Fault{fPreviewOverflow, "An image stream has at most `partial_images` previews: it sends one more preview than requested.", "6.1, 8"},
		hooks{image: func(j *imageJob, p *picture) { p.previews = j.partial + 1 }}},
	{Fault{fWrongEventFamily, "Generation streams use image_generation.* events and edit streams image_edit.*: each uses the other family's event types.", "6.1"},
		hooks{event: otherImageFamily}},
	{Fault{fStreamCut, "Raw SSE events are separated by blank lines and a client reads to the end of the stream: the stream ends in the middle of an event (chat, messages and image streams).", "6"},
		hooks{event: func(_ *stream, ev event) []event {
			ev.cut = ev.cuttable
			return []event{ev}
		}}},
	{Fault{fWrongContentType, "JSON responses use `Content-Type: application/json` and streams `text/event-stream`: success JSON is sent as text/plain and streams as application/json.", "4, 6"},
		hooks{accepted: func(_ endpoint, a *answer) {
			a.jsonType, a.streamType = "text/plain; charset=utf-8", "application/json"
		}}},
	{Fault{fAcceptInvalid, "The 400 rows of the error table are rejected with 400: each is answered 200 with a normal body (missing model/messages/prompt/reference, file_id, partial_images -1 or 4).", "7"},
		hooks{overrides: map[rule]int{
			ruleModelRequired: http.StatusOK, ruleMessagesRequired: http.StatusOK, rulePromptRequired: http.StatusOK,
			ruleReferenceRequired: http.StatusOK, ruleNoFileID: http.StatusOK, ruleFileIDAlone: http.StatusOK, rulePartialImages: http.StatusOK,
		}}},
	{Fault{fWrong404, "A retired or unknown model id returns 404: it returns 400.", "7, 9"},
		hooks{overrides: map[rule]int{ruleKnownModel: http.StatusBadRequest, ruleKnownOtherModel: http.StatusBadRequest}}},
	{Fault{fModelMissing, "The model list names the verified models for the key: the first verified model of the key (gen-5.5, msg-sonnet-5, gen-image-2, alt-flash) is left out.", "1, 2.1"},
		hooks{body: func(c *call, b map[string]any) {
			if c.ep == epModels {
				b["data"] = b["data"].([]any)[1:]
			}
		}}},
	{Fault{fMissingField, "Required response fields are present: one is removed (models `object`, chat `choices[].message.content`, chat chunk `object`, message `type`, messages text delta `delta.text`, image result `created`, image event `type`).", "2.1, 2.2, 2.3, 2.4, 6"},
		hooks{body: missingField, event: missingEventField}},
	{Fault{fWrongType, "Response fields have their documented types: one has the wrong type (models `data[].owned_by` number, chat `choices[].index` string, message `usage.input_tokens` string, image `created` string, image event `partial_image_index`/`b64_json` of another type).", "2.1, 2.2, 2.3, 2.4, 6"},
		hooks{body: wrongType, event: wrongEventType}},
	{Fault{fChatIDChanges, "Strict (official OpenAI accumulator): every chunk of one chat stream carries the same id: each chunk gets a new one.", "6.2"},
		hooks{event: newChunkIDs}},
	{Fault{fUnnamedEvents, "Strict (official Anthropic SDKs dispatch on the event name): messages stream events carry event: lines: none is sent.", "6.3"},
		hooks{event: func(s *stream, ev event) []event {
			if s.c.ep == epMessages {
				ev.name = ""
			}
			return []event{ev}
		}}},
	{Fault{fBlockIndexGap, "Strict (official Anthropic accumulator indexes blocks by position): content-block indexes are dense from 0: the text block has index 1.", "6.3"},
		hooks{event: blockIndexFrom1}},
	{Fault{fPreviewIndexOrder, "Strict: partial_image_index rises from 0 by 1: previews are numbered from 1.", "6.1"},
		hooks{event: previewIndexFrom1}},
	{Fault{fMaxTokensIgnored, "`max_tokens` is an upper bound on output length: the output runs past it and ends with finish_reason stop / stop_reason end_turn.", "4.2, 4.3, 8"},
		hooks{accepted: func(_ endpoint, a *answer) { a.limit = overrunWords }}},
	{Fault{fListsIdentical, "The model list differs per key: every key lists the models of all four key kinds.", "2.1, 5.2"},
		hooks{body: func(c *call, b map[string]any) {
			if c.ep == epModels {
				b["data"] = c.g.everyModel()
			}
		}}},
	{Fault{fImageAnyKey, "Image endpoints require a key with image permission: text and messages keys are served image generation and edits as an image key is.", "5.2"},
		hooks{overrides: map[rule]int{ruleImagePermission: http.StatusOK}}},
	{Fault{fCreatedMillis, "`created` is Unix time in seconds: image results give it in milliseconds.", "2.2"},
		hooks{body: onImages(func(b map[string]any) { b["created"] = time.Now().UnixMilli() })}},
	{Fault{fBackgroundMismatch, "`background` reflects the output background: image results name the other one (transparent for an opaque image, opaque for a transparent one).", "2.2"},
		hooks{body: onImages(func(b map[string]any) {
			b["background"] = map[string]string{"opaque": "transparent", "transparent": "opaque"}[b["background"].(string)]
		})}},
	{Fault{fBackgroundAuto, "`background` reflects the output background: every image result (JSON, generation and edit) says auto, whatever was requested and drawn.", "2.2"},
		hooks{body: onImages(func(b map[string]any) { b["background"] = "auto" })}},
	{Fault{fAlphaSpeck, "Transparent output carries a real alpha channel: with background transparent the final image is opaque but for four pixels at alpha 254, a speck rather than a transparent region.", "4.5"},
		hooks{image: func(j *imageJob, p *picture) {
			if j.transparent {
				p.scene.Transparent = false
				p.damage = append(p.damage, speck(p.format))
			}
		}}},
	{Fault{fModelOther, "`model` of a chat completion and of a message is the model used, the one requested: it names another model of the same family.", "2.3, 2.4"},
		hooks{body: func(c *call, b map[string]any) {
			if c.ep == epChat || c.ep == epMessages {
				b["model"] = c.g.otherModel(b["model"].(string))
			}
		}}},
	{Fault{fStopReasonOther, "`stop_reason` is end_turn or max_tokens for the verified prompts: messages (JSON, and the stream's message_delta) carry the chat interface's stop or length instead.", "2.4, 6.3"},
		hooks{body: func(c *call, b map[string]any) {
			if c.ep == epMessages {
				b["stop_reason"] = chatReasons[b["stop_reason"].(string)]
			}
		}, event: func(s *stream, ev event) []event {
			if s.c.ep == epMessages && ev.kind == "message_delta" {
				d := ev.data.(map[string]any)["delta"].(map[string]any)
				d["stop_reason"] = chatReasons[d["stop_reason"].(string)]
			}
			return []event{ev}
		}}},
	{Fault{fFinishReasonOther, "`finish_reason` is stop for the verified prompt: chat completions and chat stream chunks carry the messages interface's end_turn or max_tokens instead (in a stream a strict rule: 6.2 shows no finish_reason).", "2.3, 6.2"},
		hooks{body: func(c *call, b map[string]any) {
			if c.ep == epChat {
				choice := firstChoice(b)
				choice["finish_reason"] = messagesReasons[choice["finish_reason"].(string)]
			}
		}, event: func(s *stream, ev event) []event {
			if d, ok := ev.data.(map[string]any); ok && s.c.ep == epChat {
				for _, c := range d["choices"].([]any) {
					if r, ok := c.(map[string]any)["finish_reason"].(string); ok {
						c.(map[string]any)["finish_reason"] = messagesReasons[r]
					}
				}
			}
			return []event{ev}
		}}},
	{Fault{fTextInBlockStart, "Messages stream text is carried in content_block_delta events (`delta.text`): the whole text comes in content_block_start's content_block, and no delta is sent.", "6.3"},
		hooks{event: textInBlockStart}},
	{Fault{fMaxTokensHalved, "A stop at max_tokens comes at the bound: the output stops at half of max_tokens, yet says it stopped at the bound (stop_reason max_tokens, finish_reason length), with usage counting the shorter output.", "8"},
		hooks{accepted: func(_ endpoint, a *answer) { a.limit = halvedWords }}},
	{Fault{fFileIDIgnored, "`images[].file_id` and `mask.file_id` are rejected with 400: they are ignored, so an image_url beside them is used and a mask by file_id alone is left out.", "4.5, 7"},
		hooks{overrides: map[rule]int{ruleNoFileID: http.StatusOK}}},
	{Fault{fImageRoutesMissing, "Image generation and editing are served (1) at /v1/images/generations and /v1/images/edits (4.4, 4.5): both answer 404 \"Route not found\" to every request, whatever the key, as a gateway without image endpoints does. The refusals with a text or messages key (5.2: any 4xx) hold on it, so only their control, the image key's request, tells.", "1, 4.4, 4.5, 5.2"},
		hooks{refuse: func(ep endpoint) (int, string) {
			if ep.images() {
				return http.StatusNotFound, "Route not found"
			}
			return 0, ""
		}}},
	{Fault{fModelsList500, "The model list is served (4.1): GET /v1/models answers 500 to every key, as relays that cannot list their upstream's models do; every other endpoint is served as usual.", "4.1"},
		hooks{refuse: func(ep endpoint) (int, string) {
			if ep == epModels {
				return http.StatusInternalServerError, "the model list is not available"
			}
			return 0, ""
		}}},
	{Fault{fChatRefusesAll, "Chat completions are served (4.2): a relay in front of them answers 400 to every request, valid or not. The 400 rows of chat (7) hold on it, so only their control, the request without the defect, tells.", "4.2, 7"},
		hooks{refuse: func(ep endpoint) (int, string) {
			if ep == epChat {
				return http.StatusBadRequest, "request rejected by the relay"
			}
			return 0, ""
		}}},
	{Fault{fModelFixed, "`model` of a message is the model used, the one requested: every message names one fixed model (msg-sonnet-5), as a gateway serving every messages request with one backend model does.", "2.4"},
		hooks{body: func(c *call, b map[string]any) {
			if c.ep == epMessages {
				b["model"] = c.g.specModel(KindMessages, "msg-sonnet-5").ID
			}
		}}},
	{Fault{fMessagesUsageOver, "`max_tokens` is an upper bound on output length: a message's usage.output_tokens adds as many hidden tokens as max_tokens to the text's.", "4.3, 8, 2.4"},
		hooks{accepted: func(ep endpoint, a *answer) {
			if ep == epMessages {
				a.outputTokens = func(words []string, maxTokens int) int { return len(words) + maxTokens }
			}
		}}},
	{Fault{fChatTextOver, "`max_tokens` is an upper bound on output length: a chat completion's text (JSON) runs to 12 characters per token of max_tokens, about three times the bound (a token of English averages 4 characters), while its usage counts only the words within the bound.", "4.2, 8"},
		hooks{accepted: func(ep endpoint, a *answer) {
			if ep == epChat {
				a.chatText = overrunRunes
			}
		}}},
	{Fault{fChatNoChoice, "`choices[].message.content` is the generated text: a chat completion (JSON) has no choice, `choices: []`.", "2.3"},
		hooks{body: func(c *call, b map[string]any) {
			if c.ep == epChat {
				b["choices"] = []any{}
			}
		}}},
	{Fault{fFileIDResolved, "`images[].file_id` is rejected with 400: a reference by file_id alone is taken as a stored file, and the edit is served.", "4.5, 7"},
		hooks{overrides: map[rule]int{ruleFileIDAlone: http.StatusOK}}},
	{Fault{fCreatedHoursOff, "Strict: `created` is the time of the exchange in Unix seconds: image results are dated three hours early, as by a gateway whose clock or time zone is off.", "2.2"},
		hooks{body: onImages(func(b map[string]any) { b["created"] = time.Now().Add(-3 * time.Hour).Unix() })}},
	{Fault{fModelDated, "Strict: `model` is the requested id exactly: chat completions and messages name it with a release date appended (-20260501), which the verified tier accepts.", "2.3, 2.4"},
		hooks{body: func(c *call, b map[string]any) {
			if c.ep == epChat || c.ep == epMessages {
				b["model"] = b["model"].(string) + "-20260501"
			}
		}}},
	{Fault{fChatUsageOver, "A chat completion's usage.completion_tokens, when given, is at most max_tokens, an upper bound on output length: it adds as many hidden reasoning tokens as max_tokens to the text's.", "4.2, 8"},
		hooks{accepted: func(ep endpoint, a *answer) {
			if ep == epChat {
				a.outputTokens = func(words []string, maxTokens int) int { return len(words) + maxTokens }
			}
		}}},
	{Fault{fBackgroundEcho, "`background` reflects the output background: an image result's `background` echoes the background requested, auto included.", "2.2"},
		hooks{accepted: func(_ endpoint, a *answer) { a.echoBackground = true }}},
	{Fault{fSuccess201, "Strict: a success is answered 200: success JSON bodies come with 201 Created.", "2.2, 4"},
		hooks{accepted: func(_ endpoint, a *answer) { a.status = http.StatusCreated }}},
	{Fault{fEditDefaultImage2, "Strict: an edit without `model` is served by gen-image-2.5-flare: it is served by gen-image-2, which refuses the 2.5 models' qualities (xhigh, max).", "4.5"},
		hooks{imageDefault: func(ep endpoint) string {
			if ep == epEdits {
				return modelImage2
			}
			return modelImageFlare
		}}},
	{Fault{fDefaultModel, "Strict: a retired or unknown model id returns 404 (section 7 states it for messages only): chat completions and images serve an unknown id with a default model (gen-5.5, gen-image-2.5-flare).", "9"},
		hooks{overrides: map[rule]int{ruleKnownOtherModel: http.StatusOK}}},
	{Fault{fCumulativeDeltas, "Text fragments are in `choices[].delta.content`: each text delta repeats the whole text so far (in messages streams too, where it is strict: 6.3 does not say fragments, but the official accumulators join the deltas).", "6.2, 6.3"},
		hooks{event: cumulativeDeltas}},
	{Fault{fErrorAfterStop, "A messages stream carries no error event, wherever it would come: an error event follows message_stop.", "6.3"},
		hooks{event: afterMessageStop(event{name: "error", kind: "error", data: map[string]any{"type": "error",
			"error": map[string]any{"type": "api_error", "message": "Internal server error"}}})}},
	{Fault{fEventNameOther, "Strict (clients that dispatch on the event name, the official Anthropic SDKs among them): an event: line names the kind of its payload's `type`: every named messages and image event is named `message`, the SSE default.", "6.1, 6.3"},
		hooks{event: func(_ *stream, ev event) []event {
			if ev.name != "" {
				ev.name = "message"
			}
			return []event{ev}
		}}},
	{Fault{fUntypedEvents, "Strict (the official accumulators switch on the payload's `type`): messages events carry their `type`: none does, only the event: line names the kind.", "6.3"},
		hooks{event: func(s *stream, ev event) []event {
			if d, ok := ev.data.(map[string]any); ok && s.c.ep == epMessages {
				delete(d, "type")
			}
			return []event{ev}
		}}},
	{Fault{fNoFinalBlankLine, "Strict (SSE clients that follow the WHATWG rules drop an event no blank line ends): every event, the last too, is followed by a blank line: the stream ends right after the last event's data line.", "6"},
		hooks{event: func(_ *stream, ev event) []event {
			ev.unended = true
			return []event{ev}
		}}},
	{Fault{fEventAfterStop, "Strict: messages stream events end with `message_stop`: an event of a kind 6.3 does not name (the gateway's own usage report) follows it.", "6.3"},
		hooks{event: afterMessageStop(event{name: "gateway_usage", kind: "gateway_usage", data: map[string]any{"type": "gateway_usage", "cost_usd": 0.0001}})}},
	{Fault{fStopReasonOnStop, "Strict (the official SDKs read `delta.stop_reason`): the final stop_reason is in message_delta's `delta`: it is on message_stop instead.", "6.3"},
		hooks{event: stopReasonOnStop(true)}},
	{Fault{fMessagesNoDelta, "Strict (the official SDKs read the final stop_reason from message_delta's `delta`): a messages stream carries message_delta, with the final stop_reason: none is sent, and the stop_reason is on message_stop.", "6.3"},
		hooks{event: stopReasonOnStop(false)}},
	{Fault{fImageEventFields, "Strict: an image event's `size` and `output_format` describe its image: image stream events name another size and format than their image's.", "6.1, 2.2"},
		hooks{event: imageEventFieldsOff}},
	{Fault{fStreamModelOther, "Strict (the official accumulators copy it into the result): a stream names the model requested: chat chunks' `model` and message_start's `message.model` name another model of the family (JSON answers are left as they are).", "6.2, 6.3, 2.3, 2.4"},
		hooks{event: streamModelOther}},
	// Issue 17, point 3: sections intro to 4.4.
	{Fault{fVerifiedModel404, "Models with a completed call (1) are served: one listed model of each interface answers 404 as unknown: gen-5.5 on chat completions, msg-haiku-4-5-20251001 (known only by its undated alias, so its full identifier, 4.3) and alt-flash on messages, gen-image-2 on the image endpoints.", "1, 4.2, 4.3, 4.4"},
		hooks{unserved: func(ep endpoint, m model) bool {
			switch ep {
			case epChat:
				return m.Spec == "gen-5.5"
			case epMessages:
				return m.Spec == "msg-haiku-4-5-20251001" || m.Spec == "alt-flash"
			case epGenerations, epEdits:
				return m.Spec == modelImage2
			}
			return false
		}}},
	{Fault{fStreamIgnored, "`stream: true` gives SSE: it is ignored, and the request is answered with the JSON body (chat completions, messages, image generation and edits).", "4.2, 4.3, 4.4"},
		hooks{accepted: func(_ endpoint, a *answer) { a.streams = func(endpoint, *bool) bool { return false } }}},
	{Fault{fStreamByDefault, "`stream` omitted gives JSON: chat completions and messages without `stream` are answered with an event stream.", "4.2, 4.3"},
		hooks{accepted: func(_ endpoint, a *answer) {
			a.streams = func(ep endpoint, s *bool) bool {
				if s == nil {
					return ep == epChat || ep == epMessages
				}
				return *s
			}
		}}},
	{Fault{fStreamFalseStreams, "`stream` is a boolean whose omission gives JSON (strict: false is not shown, LangChain JS sends it): chat completions and messages with `stream: false` are answered with an event stream, as a gateway testing for the member rather than its value does.", "4.2, 4.3"},
		hooks{accepted: func(_ endpoint, a *answer) {
			a.streams = func(ep endpoint, s *bool) bool {
				if s != nil && !*s {
					return ep == epChat || ep == epMessages
				}
				return s != nil && *s
			}
		}}},
	{Fault{fSuccess300, "Success is the 200-class status: success JSON bodies come with 300 Multiple Choices.", "2.2"},
		hooks{accepted: func(_ endpoint, a *answer) { a.status = http.StatusMultipleChoices }}},
	{Fault{fListDataObject, "The model list's `data` is an array of model records: it is an object keyed by model id.", "2.1"},
		hooks{body: func(c *call, b map[string]any) {
			if c.ep == epModels {
				byID := map[string]any{}
				for _, m := range b["data"].([]any) {
					byID[m.(map[string]any)["id"].(string)] = m
				}
				b["data"] = byID
			}
		}}},
	{Fault{fModelObjectOther, "`data[].object` of the model list is `model`: every record says `engine`.", "2.1"},
		hooks{body: onModelRecords(func(m map[string]any) { m["object"] = "engine" })}},
	{Fault{fModelIDRenamed, "`data[].id` is the model identifier: each record names it under `name`, and has no `id`.", "2.1"},
		hooks{body: onModelRecords(func(m map[string]any) { m["name"] = m["id"]; delete(m, "id") })}},
	{Fault{fChatObjectOther, "`object` of a chat completion is `chat.completion`: it is `text_completion`.", "2.3"},
		hooks{body: func(c *call, b map[string]any) {
			if c.ep == epChat {
				b["object"] = "text_completion"
			}
		}}},
	{Fault{fChoicesObject, "`choices` of a chat completion is an array: it is the one choice itself, unwrapped.", "2.3"},
		hooks{body: func(c *call, b map[string]any) {
			if c.ep == epChat {
				b["choices"] = firstChoice(b)
			}
		}}},
	{Fault{fRoleOther, "The role of a chat completion's message (`choices[].message.role`) and of a message (`role`) is `assistant`: both say `model`.", "2.3, 2.4"},
		hooks{body: func(c *call, b map[string]any) {
			switch c.ep {
			case epChat:
				firstChoice(b)["message"].(map[string]any)["role"] = "model"
			case epMessages:
				b["role"] = "model"
			}
		}}},
	{Fault{fContentString, "`content` of a message is an array of blocks: it is the text as a plain string.", "2.4"},
		hooks{body: onMessageBlocks(func(b map[string]any, blocks []any) {
			var texts []string
			for _, blk := range blocks {
				texts = append(texts, blk.(map[string]any)["text"].(string))
			}
			b["content"] = strings.Join(texts, "")
		})}},
	{Fault{fBlockTypeOther, "`content[].type` of a message's text block is `text`: text blocks are typed `output_text`.", "2.4"},
		hooks{body: onMessageBlocks(func(_ map[string]any, blocks []any) {
			for _, blk := range blocks {
				blk.(map[string]any)["type"] = "output_text"
			}
		})}},
	{Fault{fBlockTextParts, "`content[].text` of a message is a string: each text block's `text` is a list of its words.", "2.4"},
		hooks{body: onMessageBlocks(func(_ map[string]any, blocks []any) {
			for _, blk := range blocks {
				var parts []any
				for _, w := range strings.Fields(blk.(map[string]any)["text"].(string)) {
					parts = append(parts, w+" ")
				}
				blk.(map[string]any)["text"] = parts
			}
		})}},
	{Fault{fCacheTokensNull, "A message's `usage.cache_creation_input_tokens` and `usage.cache_read_input_tokens` are integers, which may be 0: both are null when no cache was used.", "2.4"},
		hooks{body: func(c *call, b map[string]any) {
			if c.ep == epMessages {
				u := b["usage"].(map[string]any)
				u["cache_creation_input_tokens"], u["cache_read_input_tokens"] = nil, nil
			}
		}}},
	// Issue 17, point 3: sections 4.5 to 9.
	{Fault{fEditNDefault2, "`n` defaults to 1: an edit without `n` answered as JSON returns two images.", "4.5, 8"},
		hooks{imageJob: onEdits(func(in *imageRequest, _ *formFiles, j *imageJob) error {
			if in.N == nil && !j.stream {
				j.n = 2
			}
			return nil
		})}},
	{Fault{fEditSizeDefault1024, "An omitted `size` returns 1254x1254: an edit without `size` is answered at 1024x1024 (image and `size` field alike).", "4.5"},
		hooks{imageJob: onEdits(func(in *imageRequest, _ *formFiles, j *imageJob) error {
			if in.Size == nil {
				j.w, j.h, j.size = 1024, 1024, "1024x1024"
			}
			return nil
		})}},
	{Fault{fQualityMaxRefused, "`quality` `max` is verified for the 2.5 models: their edits refuse it with 400.", "4.5"},
		hooks{imageJob: onEdits(func(in *imageRequest, _ *formFiles, j *imageJob) error {
			if in.Quality != nil && *in.Quality == "max" && j.model.Spec != modelImage2 {
				return bad("quality", "quality must be one of low, medium, high, xhigh, auto for %s; got %q", j.model.ID, *in.Quality)
			}
			return nil
		})}},
	{Fault{fImage2QualityRefused, "`quality` `low`, `medium`, `high`, `auto` are verified for `gen-image-2`: its edits refuse any `quality` with 400.", "4.5"},
		hooks{imageJob: onEdits(func(in *imageRequest, _ *formFiles, j *imageJob) error {
			if in.Quality != nil && j.model.Spec == modelImage2 {
				return bad("quality", "%s takes no quality parameter", j.model.ID)
			}
			return nil
		})}},
	{Fault{fOpaqueRefused, "`background` `opaque` (with `jpeg`) is verified: edits refuse it with 400.", "4.5"},
		hooks{imageJob: onEdits(func(in *imageRequest, _ *formFiles, _ *imageJob) error {
			if in.Background != nil && *in.Background == "opaque" {
				return bad("background", "background must be transparent or auto; got %q", *in.Background)
			}
			return nil
		})}},
	{Fault{fBackgroundAutoRefused, "`background` `auto` (with `webp`) is verified: edits refuse it with 400.", "4.5"},
		hooks{imageJob: onEdits(func(in *imageRequest, _ *formFiles, _ *imageJob) error {
			if in.Background != nil && *in.Background == "auto" {
				return bad("background", "background must be transparent or opaque; got %q", *in.Background)
			}
			return nil
		})}},
	{Fault{fJPEGZeroRefused, "`output_compression` 0 is verified for `jpeg`: edits refuse it with 400, as a gateway taking 1 to 100 does.", "4.5, 8"},
		hooks{imageJob: onEdits(func(in *imageRequest, _ *formFiles, j *imageJob) error {
			if in.OutputCompression != nil && *in.OutputCompression == 0 && j.format == "jpeg" {
				return bad("output_compression", "output_compression must be between 1 and 100")
			}
			return nil
		})}},
	{Fault{fWebPCompressionRefused, "`output_compression` 50 is verified for `webp`: edits refuse any `output_compression` with webp with 400, as a gateway taking it for jpeg only does.", "4.5, 8"},
		hooks{imageJob: onEdits(func(in *imageRequest, _ *formFiles, j *imageJob) error {
			if in.OutputCompression != nil && j.format == "webp" {
				return bad("output_compression", "output_compression applies to jpeg only")
			}
			return nil
		})}},
	{Fault{fPartialImages3Refused, "`partial_images` 0, 1, 2, 3 are accepted: edits refuse 3 with 400, as a gateway taking 0 to 2 does.", "4.5"},
		hooks{imageJob: onEdits(func(in *imageRequest, _ *formFiles, _ *imageJob) error {
			if in.PartialImages != nil && *in.PartialImages == 3 {
				return bad("partial_images", "partial_images must be between 0 and 2")
			}
			return nil
		})}},
	{Fault{fTwoRefsRefused, "Two reference images are verified for the 2.5 models (JSON `images`): a JSON edit with more than one is refused with 400.", "4.5"},
		hooks{imageJob: onEdits(func(in *imageRequest, files *formFiles, _ *imageJob) error {
			if files == nil && len(in.Images) > 1 {
				return bad("images", "images takes one reference image")
			}
			return nil
		})}},
	{Fault{fJSONMaskRefused, "`mask` with an `image_url` is verified for the 2.5 models (JSON): a JSON edit with a mask is refused with 400.", "4.5"},
		hooks{imageJob: onEdits(func(in *imageRequest, files *formFiles, _ *imageJob) error {
			if files == nil && in.Mask != nil {
				return bad("mask", "mask is not supported in JSON edits")
			}
			return nil
		})}},
	{Fault{fImageArrayIgnored, "`image[]` repeated gives two reference images (multipart): `image[]` fields are ignored, so an edit sending its references so has none and is refused with 400.", "4.5"},
		hooks{imageJob: onEdits(func(_ *imageRequest, files *formFiles, j *imageJob) error {
			if files == nil {
				return nil
			}
			var kept []inputImage
			for i, r := range j.refs {
				if files.fields[i] != "image[]" {
					kept = append(kept, r)
				}
			}
			if len(kept) == 0 {
				return bad("image", "an edit needs at least one reference image (image or images[].image_url)")
			}
			j.refs = kept
			return nil
		})}},
	{Fault{fMultipartMaskRefused, "A `mask` file is verified for the 2.5 models (multipart): a multipart edit with a mask is refused with 400.", "4.5"},
		hooks{imageJob: onEdits(func(_ *imageRequest, files *formFiles, _ *imageJob) error {
			if files != nil && files.hasMsk {
				return bad("mask", "mask files are not supported")
			}
			return nil
		})}},
	{Fault{fReference1024Refused, "Reference images of 1024x1024 PNG are the verified size: edits refuse references more than 1000 pixels a side with 400.", "8, 4.5"},
		hooks{imageJob: onEdits(func(_ *imageRequest, _ *formFiles, j *imageJob) error {
			for i, r := range j.refs {
				if sz := r.img.Bounds().Size(); sz.X > 1000 || sz.Y > 1000 {
					return bad("image", "reference image %d is %dx%d: at most 1000 pixels a side", i, sz.X, sz.Y)
				}
			}
			return nil
		})}},
	{Fault{fMissingKeyServed, "Strict (HTTP reserves 401 for missing credentials, and the official clients never retry it): a request without a key, or with an unknown one, is refused: it is served as if it carried the text key.", "5.1, 5.4"},
		hooks{keyless: func() string { return KindText }}},
	// Issue 17, point 3: the rest.
	{Fault{fGenerationIDOther, "`data[].generation_id` is a UUID-format identifier: image results (JSON) name each image `img_` and 24 hex digits.", "2.2"},
		hooks{body: onImages(func(b map[string]any) {
			for _, d := range b["data"].([]any) {
				d.(map[string]any)["generation_id"] = "img_" + randHex(12)
			}
		})}},
	{Fault{fQualityOther, "`quality` echoes the quality used: image results (JSON) name another quality than the one requested (low, medium as high; high, xhigh, max as low; auto, which may name what it resolved to, as it is).", "2.2"},
		hooks{body: onImages(func(b map[string]any) {
			if q, ok := map[string]string{"low": "high", "medium": "high", "high": "low", "xhigh": "low", "max": "low"}[b["quality"].(string)]; ok {
				b["quality"] = q
			}
		})}},
	{Fault{fUsageMissing, "An image result carries `usage`, its token accounting: image results (JSON) have none.", "2.2"},
		hooks{body: onImages(func(b map[string]any) { delete(b, "usage") })}},
	{Fault{fTotalTokensOff, "`usage.total_tokens` is input plus output: image results (JSON) count the output tokens only.", "2.2"},
		hooks{body: onImages(func(b map[string]any) {
			u := b["usage"].(map[string]any)
			u["total_tokens"] = u["output_tokens"]
		})}},
	{Fault{fUsageInputStrings, "`usage.input_tokens` and `usage.input_tokens_details.image_tokens` and `.text_tokens` are integers: image results (JSON) give the three as strings.", "2.2"},
		hooks{body: onImages(func(b map[string]any) { usageStrings(b, "input_tokens") })}},
	{Fault{fUsageOutputStrings, "`usage.output_tokens` and `usage.output_tokens_details.image_tokens` and `.text_tokens` are integers: image results (JSON) give the three as strings.", "2.2"},
		hooks{body: onImages(func(b map[string]any) { usageStrings(b, "output_tokens") })}},
	{Fault{fGenNDefault2, "`n` defaults to 1: a generation without `n` answered as JSON returns two images.", "4.4"},
		hooks{imageJob: onGenerations(func(in *imageRequest, j *imageJob) error {
			if in.N == nil && !j.stream {
				j.n = 2
			}
			return nil
		})}},
	{Fault{fGenSizeIgnored, "`size` `1024x1024` is verified for generations: a generation answered as JSON ignores `size` and comes at the default 1254x1254 (image and `size` field alike).", "4.4"},
		hooks{imageJob: onGenerations(func(_ *imageRequest, j *imageJob) error {
			if !j.stream {
				j.w, j.h, j.size = 1254, 1254, "1254x1254"
			}
			return nil
		})}},
	{Fault{fGenSizeDefault1024, "An omitted `size` returns 1254x1254: a generation without `size` is answered at 1024x1024 (image and `size` field alike).", "4.4"},
		hooks{imageJob: onGenerations(func(in *imageRequest, j *imageJob) error {
			if in.Size == nil {
				j.w, j.h, j.size = 1024, 1024, "1024x1024"
			}
			return nil
		})}},
	{Fault{fGenQualityAutoRefused, "`quality` `auto` is verified for gen-image-2 generations: they refuse it with 400, as a gateway taking low, medium and high only does.", "4.4"},
		hooks{imageJob: onGenerations(func(in *imageRequest, j *imageJob) error {
			if in.Quality != nil && *in.Quality == "auto" && j.model.Spec == modelImage2 {
				return bad("quality", "quality must be one of low, medium, high for %s; got %q", j.model.ID, *in.Quality)
			}
			return nil
		})}},
	{Fault{fGenModelRequired, "An omitted `model` is served by gen-image-2.5-flare: a generation without `model` is refused with 400.", "4.4"},
		hooks{imageJob: onGenerations(func(in *imageRequest, _ *imageJob) error {
			if in.Model == nil || *in.Model == "" {
				return bad("model", "model is required")
			}
			return nil
		})}},
	{Fault{fStringContentRefused, "A message's `content` may be a string (chat completions, verified so; messages): a JSON request whose message content is a string is refused with 400, as a gateway taking content arrays only does.", "4.2, 4.3"},
		hooks{content: func(_ endpoint, _ model, stream bool, content json.RawMessage) error {
			var s string
			if !stream && json.Unmarshal(content, &s) == nil {
				return bad("messages", "content must be an array of content parts")
			}
			return nil
		}}},
	{Fault{fTextBlocksRefused, "A message's `content` may be a string (strict: the Anthropic SDKs' helpers, langchaingo and the AI SDK send an array of text blocks): a messages request whose content is an array of text blocks only is refused with 400, as a gateway taking strings only does.", "4.3"},
		hooks{content: func(ep endpoint, _ model, _ bool, content json.RawMessage) error {
			var parts []map[string]any
			if ep != epMessages || json.Unmarshal(content, &parts) != nil {
				return nil
			}
			for _, p := range parts {
				if t, _ := p["type"].(string); t != "text" {
					return nil
				}
			}
			return bad("messages", "content must be a string")
		}}},
	{Fault{fAltImageRefused, "The alternative text model accepts a content array holding a single base64 PNG image: its messages refuse any image content part with 400.", "4.3"},
		hooks{content: func(ep endpoint, m model, _ bool, content json.RawMessage) error {
			var parts []map[string]any
			if ep != epMessages || m.Family != KindAlt || json.Unmarshal(content, &parts) != nil {
				return nil
			}
			for _, p := range parts {
				if t, _ := p["type"].(string); t == "image" || t == "image_url" || t == "input_image" {
					return bad("messages", "%s takes text content only", m.ID)
				}
			}
			return nil
		}}},
	{Fault{fChatDataNotJSON, "Each `data:` line holds a JSON event: a chat stream sends a data line holding the text keep-alive before `data: [DONE]`.", "6"},
		hooks{event: func(s *stream, ev event) []event {
			if s.c.ep == epChat && ev.kind == "[DONE]" {
				return []event{{data: "keep-alive"}, ev}
			}
			return []event{ev}
		}}},
	{Fault{fTemperatureRefused, "Strict: `temperature` is a number, not required (4.2): a chat request that sets it is refused with 400, as a gateway passing only the parameters verified does.", "4.2"},
		hooks{params: onParam(epChat, "temperature", "temperature is not supported")}},
	{Fault{fMaxTokensRefused, "`max_tokens` is supplied in all verified messages calls (4.3): a messages request that sets it is refused with 400.", "4.3"},
		hooks{params: onParam(epMessages, "max_tokens", "max_tokens is not supported")}},
	{Fault{fAltMaxTokensOptional, "Strict: `max_tokens` is required for the alternative text model (4.3): a request without it is served, unbounded.", "4.3"},
		hooks{overrides: map[rule]int{ruleAltMaxTokens: http.StatusOK}}},
	{Fault{fEditJSONRefused, "Edits take a JSON body with `images[].image_url` Data URLs, the alternative to a multipart `image` (4.5, rule 3): a JSON edit is refused with 400, as a gateway taking multipart only does.", "4.5"},
		hooks{imageJob: onEdits(func(_ *imageRequest, files *formFiles, _ *imageJob) error {
			if files == nil {
				return bad("images", "JSON edits are not supported: send multipart/form-data")
			}
			return nil
		})}},
	{Fault{fEditMultipartRefused, "Edits take a multipart `image` file, the alternative to JSON `images` (4.5, rule 3): a multipart edit is refused with 400, as a gateway taking JSON only does.", "4.5"},
		hooks{imageJob: onEdits(func(_ *imageRequest, files *formFiles, _ *imageJob) error {
			if files != nil {
				return bad("image", "multipart edits are not supported: send JSON")
			}
			return nil
		})}},
	{Fault{fPNGCompressionNeeded, "`output_compression` is omitted for `png` (4.5): a png edit without it is refused with 400.", "4.5"},
		hooks{imageJob: onEdits(func(in *imageRequest, _ *formFiles, j *imageJob) error {
			if j.format == "png" && in.OutputCompression == nil {
				return bad("output_compression", "output_compression is required")
			}
			return nil
		})}},
	{Fault{fNoBlankLines, "Raw SSE events are separated by blank lines (6): events follow one another with no blank line between, so a reader joins them into one event of several data lines; the stream's last event keeps its blank line.", "6"},
		hooks{event: func(_ *stream, ev event) []event {
			ev.glued = true
			return []event{ev}
		}}},
	{Fault{fDataSplit, "Each `data:` line holds a JSON event (6): every JSON event of a stream (chat, messages and image streams) is written over two data: lines, cut after its first comma between values (an event of one member, such as ping, stays whole), so only the lines joined hold it.", "6"},
		hooks{event: func(_ *stream, ev event) []event {
			_, ev.split = ev.data.(map[string]any)
			return []event{ev}
		}}},
	{Fault{fChatUnversioned, "All paths start with `/v1` (intro, 9): chat completions are served at /chat/completions, and /v1/chat/completions answers 404.", "intro, 9"},
		hooks{refuse: refuseAt(epChat, "Route not found: chat completions are served at /chat/completions")}},
	{Fault{fMessagesPrefixed, "The messages path is exactly {base_url}/v1/messages, with no extra prefix segment (4.3): messages are served under /anthropic/v1/messages, and /v1/messages answers 404.", "4.3"},
		hooks{refuse: refuseAt(epMessages, "Route not found: messages are served at /anthropic/v1/messages")}},
	{Fault{fPreviewsCompleted, "`partial_images` is separate from `n`, which fixes the number of final images: an image stream sends each preview as a completed event of its own.", "6.1"},
		hooks{image: func(_ *imageJob, p *picture) { p.previewsCompleted = true }}},
	// Strict rules from the official readers (issue 17, point 2.9).
	{Fault{fStartMessageMissing, "Strict (anthropic-sdk-go Message.Accumulate and the JS SDK's MessageStream take the message from message_start): message_start carries the message: it carries none, only its type.", "6.3"},
		hooks{event: onMessagesEvent("message_start", func(d map[string]any) { delete(d, "message") })}},
	{Fault{fContentBlockMissing, "Strict (anthropic-sdk-go Message.Accumulate builds each block from content_block_start's content_block): content_block_start carries the block it starts: it carries only its index.", "6.3"},
		hooks{event: onMessagesEvent("content_block_start", func(d map[string]any) { delete(d, "content_block") })}},
	{Fault{fTextDeltaUntyped, "Strict (anthropic-sdk-go Message.Accumulate appends delta.text for delta.type text_delta only): a text delta is typed text_delta: text deltas carry delta.text alone, as 6.3 shows them.", "6.3"},
		hooks{event: onMessagesEvent("content_block_delta", func(d map[string]any) {
			if delta, ok := d["delta"].(map[string]any); ok {
				delete(delta, "type")
			}
		})}},
	{Fault{fDeltaUsageMissing, "Strict (anthropic-sdk-go Message.Accumulate and the JS SDK's MessageStream read output_tokens from message_delta's usage): message_delta carries usage.output_tokens: it carries no usage.", "6.3"},
		hooks{event: onMessagesEvent("message_delta", func(d map[string]any) { delete(d, "usage") })}},
	{Fault{fChatIDDropped, "Strict (openai-go ChatCompletionAccumulator rejects a chunk whose id is not the first chunk's): every chunk carries the stream's id: only the first chunk has one.", "6.2"},
		hooks{event: afterFirstChunk(func(d map[string]any) { delete(d, "id") })}},
	{Fault{fFinishReasonCleared, "Strict (openai-go ChatCompletionAccumulator copies each chunk's finish_reason): the chunk with finish_reason ends the choice: an empty chunk with finish_reason null follows it.", "6.2, 2.3"},
		hooks{event: finishReasonCleared}},
	{Fault{fChunkModelDropped, "Strict (openai-go ChatCompletionAccumulator copies each chunk's model into the result): every chunk names the model: only the first chunk does.", "6.2, 2.3"},
		hooks{event: afterFirstChunk(func(d map[string]any) { delete(d, "model") })}},
	{Fault{fChatUsageRepeated, "Strict (openai-go ChatCompletionAccumulator adds up the usage of every chunk): a chat stream reports usage once: every chunk carries the usage of the whole answer.", "6.2"},
		hooks{event: chatUsageEveryChunk}},
	{Fault{fErrorMemberNull, "Strict (openai-go's stream reader, for chat and image streams, ends a stream on any `error` member): a stream event carries no `error` member: chat chunks and image events carry \"error\": null.", "6.1, 6.2"},
		hooks{event: func(s *stream, ev event) []event {
			if d, ok := ev.data.(map[string]any); ok && (s.c.ep == epChat || s.c.ep.images()) {
				d["error"] = nil
			}
			return []event{ev}
		}}},
}

// refuseAt makes a refuse hook answering every request to ep 404 with msg.
func refuseAt(ep endpoint, msg string) func(endpoint) (int, string) {
	return func(at endpoint) (int, string) {
		if at == ep {
			return http.StatusNotFound, msg
		}
		return 0, ""
	}
}

// onParam makes a params hook refusing requests to ep that set param.
func onParam(ep endpoint, param, msg string) func(endpoint, map[string]bool) error {
	return func(at endpoint, set map[string]bool) error {
		if at == ep && set[param] {
			return bad(param, "%s", msg)
		}
		return nil
	}
}

// onMessagesEvent makes an event hook that changes the payload of each
// messages stream event of one kind.
func onMessagesEvent(kind string, change func(d map[string]any)) func(*stream, event) []event {
	return func(s *stream, ev event) []event {
		if d, ok := ev.data.(map[string]any); ok && s.c.ep == epMessages && ev.kind == kind {
			change(d)
		}
		return []event{ev}
	}
}

// afterFirstChunk makes an event hook that changes every chat chunk but the
// first.
func afterFirstChunk(change func(d map[string]any)) func(*stream, event) []event {
	return func(s *stream, ev event) []event {
		if d, ok := ev.data.(map[string]any); ok && s.c.ep == epChat && s.sent > 0 {
			change(d)
		}
		return []event{ev}
	}
}

// finishReasonCleared follows a chat chunk whose choice finishes with an
// empty chunk of the same choice, finish_reason null.
func finishReasonCleared(s *stream, ev event) []event {
	d, ok := ev.data.(map[string]any)
	if !ok || s.c.ep != epChat {
		return []event{ev}
	}
	for _, c := range d["choices"].([]any) {
		if f, _ := c.(map[string]any)["finish_reason"].(string); f != "" {
			more := maps.Clone(d)
			more["choices"] = []any{map[string]any{"index": 0, "delta": map[string]any{}, "logprobs": nil, "finish_reason": nil}}
			return []event{ev, {data: more}}
		}
	}
	return []event{ev}
}

// chatUsageEveryChunk gives every chat chunk the usage of the whole answer
// (the usage-only chunk keeps its own), as a gateway repeating it does.
func chatUsageEveryChunk(s *stream, ev event) []event {
	if d, ok := ev.data.(map[string]any); ok && s.c.ep == epChat && d["usage"] == nil {
		d["usage"] = map[string]any{"prompt_tokens": 12, "completion_tokens": 8, "total_tokens": 20}
	}
	return []event{ev}
}

// usageStrings gives an image result's usage.<group> and the integers of
// usage.<group>_details as strings.
func usageStrings(b map[string]any, group string) {
	u := b["usage"].(map[string]any)
	u[group] = fmt.Sprint(u[group])
	d := u[group+"_details"].(map[string]any)
	for k, x := range d {
		d[k] = fmt.Sprint(x)
	}
}

// onGenerations makes an imageJob hook that acts on image generations only.
func onGenerations(vet func(in *imageRequest, j *imageJob) error) func(endpoint, *imageRequest, *formFiles, *imageJob) error {
	return func(ep endpoint, in *imageRequest, _ *formFiles, j *imageJob) error {
		if ep != epGenerations {
			return nil
		}
		return vet(in, j)
	}
}

// onModelRecords makes a body hook that changes each record of a model list.
func onModelRecords(change func(record map[string]any)) func(*call, map[string]any) {
	return func(c *call, b map[string]any) {
		if c.ep == epModels {
			for _, m := range b["data"].([]any) {
				change(m.(map[string]any))
			}
		}
	}
}

// onMessageBlocks makes a body hook that changes a message (JSON) and its
// content blocks.
func onMessageBlocks(change func(body map[string]any, blocks []any)) func(*call, map[string]any) {
	return func(c *call, b map[string]any) {
		if c.ep == epMessages {
			change(b, b["content"].([]any))
		}
	}
}

// Faults lists every fault switch, sorted by name.
func Faults() []Fault {
	out := make([]Fault, len(faultTable))
	for i, f := range faultTable {
		out[i] = f.Fault
	}
	slices.SortFunc(out, func(a, b Fault) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// UnknownFaultError refuses a fault name the table does not have; the
// command line adds a did-you-mean from Faults.
type UnknownFaultError struct{ Name string }

func (e UnknownFaultError) Error() string {
	return fmt.Sprintf("unknown fault %q (see --list-faults)", e.Name)
}

// addFaults adds the names of comma-separated lists to set and refuses
// unknown names.
func addFaults(set map[string]bool, lists []string) error {
	for _, list := range lists {
		for name := range strings.SplitSeq(list, ",") {
			name = strings.TrimSpace(name)
			if name == "" {
				continue
			}
			if !slices.ContainsFunc(faultTable, func(f fault) bool { return f.Name == name }) {
				return UnknownFaultError{Name: name}
			}
			set[name] = true
		}
	}
	return nil
}

// activeFaults lists the faults named in set, in table order, so that
// faults switched on together always act in the same order.
func activeFaults(set map[string]bool) []*fault {
	var out []*fault
	for i := range faultTable {
		if set[faultTable[i].Name] {
			out = append(out, &faultTable[i])
		}
	}
	return out
}

// ---- what the faults of the table do ----

// onImages makes a body hook that changes image results only.
func onImages(change func(body map[string]any)) func(*call, map[string]any) {
	return func(c *call, body map[string]any) {
		if c.ep.images() {
			change(body)
		}
	}
}

// dropEvent makes an event hook that leaves out events of the given kinds.
func dropEvent(kinds ...string) func(*stream, event) []event {
	return func(_ *stream, ev event) []event {
		if slices.Contains(kinds, ev.kind) {
			return nil
		}
		return []event{ev}
	}
}

// firstChoice is choices[0] of a chat completion.
func firstChoice(body map[string]any) map[string]any {
	return body["choices"].([]any)[0].(map[string]any)
}

// missingField removes one required field of each JSON answer (2.1–2.4).
func missingField(c *call, body map[string]any) {
	switch c.ep {
	case epModels:
		delete(body, "object")
	case epChat:
		delete(firstChoice(body)["message"].(map[string]any), "content")
	case epMessages:
		delete(body, "type")
	case epGenerations, epEdits:
		delete(body, "created")
	}
}

// missingEventField removes one required field of stream events (6): the
// object of chat chunks, the text of messages text deltas (delta.text, the
// one payload field 6.3 shows: an event without type takes its kind from
// its event: line) and the type of image events (6.1 lists it).
func missingEventField(s *stream, ev event) []event {
	if d, ok := ev.data.(map[string]any); ok {
		switch {
		case s.c.ep == epChat:
			delete(d, "object")
		case s.c.ep == epMessages && ev.kind == "content_block_delta":
			delete(d["delta"].(map[string]any), "text")
		case s.c.ep.images():
			delete(d, "type")
		}
	}
	return []event{ev}
}

// wrongType gives one field of each JSON answer another type (2.1–2.4).
func wrongType(c *call, body map[string]any) {
	switch c.ep {
	case epModels:
		for _, m := range body["data"].([]any) {
			m.(map[string]any)["owned_by"] = 7
		}
	case epChat:
		firstChoice(body)["index"] = "0"
	case epMessages:
		u := body["usage"].(map[string]any)
		u["input_tokens"] = fmt.Sprint(u["input_tokens"])
	case epGenerations, epEdits:
		body["created"] = strconv.FormatInt(time.Now().Unix(), 10)
	}
}

// wrongEventType gives one field of stream events another type (6): the
// index of chat choices, the output tokens of message_delta, an image
// preview's partial_image_index, and the b64_json of a completed image that
// had no preview (one with previews already shows the fault in them).
func wrongEventType(s *stream, ev event) []event {
	d, ok := ev.data.(map[string]any)
	if !ok {
		return []event{ev}
	}
	switch {
	case s.c.ep == epChat:
		for _, c := range d["choices"].([]any) {
			c.(map[string]any)["index"] = "0"
		}
	case s.c.ep == epMessages && ev.kind == "message_delta":
		u := d["usage"].(map[string]any)
		u["output_tokens"] = fmt.Sprint(u["output_tokens"])
	case s.c.ep.images() && strings.HasSuffix(ev.kind, ".partial_image"):
		d["partial_image_index"] = fmt.Sprint(d["partial_image_index"])
	case s.c.ep.images() && strings.HasSuffix(ev.kind, ".completed") && !strings.HasSuffix(s.last, ".partial_image"):
		d["b64_json"] = []any{d["b64_json"]}
	}
	return []event{ev}
}

// messageDeltaFirst holds back everything a messages stream sends between
// message_start and message_delta, then writes message_delta before it.
func messageDeltaFirst(s *stream, ev event) []event {
	if s.c.ep != epMessages {
		return []event{ev}
	}
	switch ev.kind {
	case "message_start", "message_stop":
		return []event{ev}
	case "message_delta":
		out := append([]event{ev}, s.held...)
		s.held = nil
		return out
	}
	s.held = append(s.held, ev)
	return nil
}

// otherImageFamily names image events after the other family: a generation
// stream sends image_edit.* events and an edit stream image_generation.*.
func otherImageFamily(s *stream, ev event) []event {
	d, ok := ev.data.(map[string]any)
	if !ok || !s.c.ep.images() {
		return []event{ev}
	}
	other := func(t string) string {
		if rest, ok := strings.CutPrefix(t, "image_generation."); ok {
			return "image_edit." + rest
		}
		if rest, ok := strings.CutPrefix(t, "image_edit."); ok {
			return "image_generation." + rest
		}
		return t
	}
	ev.name = other(ev.name)
	if t, ok := d["type"].(string); ok {
		d["type"] = other(t)
	}
	return []event{ev}
}

// newChunkIDs gives every chunk of a chat stream a new id.
func newChunkIDs(s *stream, ev event) []event {
	if d, ok := ev.data.(map[string]any); ok && s.c.ep == epChat {
		d["id"] = "chatcmpl-" + randHex(12)
	}
	return []event{ev}
}

// blockIndexFrom1 numbers the content blocks of a messages stream from 1.
func blockIndexFrom1(s *stream, ev event) []event {
	if d, ok := ev.data.(map[string]any); ok && s.c.ep == epMessages {
		if i, ok := d["index"].(int); ok {
			d["index"] = i + 1
		}
	}
	return []event{ev}
}

// previewIndexFrom1 numbers the previews of an image stream from 1.
func previewIndexFrom1(s *stream, ev event) []event {
	if d, ok := ev.data.(map[string]any); ok && s.c.ep.images() {
		if i, ok := d["partial_image_index"].(int); ok {
			d["partial_image_index"] = i + 1
		}
	}
	return []event{ev}
}

// overrunWords ignores max_tokens: it never cuts the words, and makes an
// answer that would have fitted anyway run past the bound, so the fault shows.
func overrunWords(words []string, maxTokens int) ([]string, bool) {
	if maxTokens > 0 && len(words) <= maxTokens {
		extra := generate("overflow", strings.Join(words, " "), nil)
		for len(words) <= maxTokens {
			words = append(words, extra...)
		}
	}
	return words, false
}

// overrunRunes adds words to a text until it holds more than 12 characters
// per token of max_tokens: three times the 4 characters a token of English
// averages, as a gateway applying three times the bound writes, so the
// overrun shows in the text itself.
func overrunRunes(text string, maxTokens int) string {
	if maxTokens <= 0 {
		return text
	}
	extra := generate("overflow", text, nil)
	var b strings.Builder
	b.WriteString(text)
	for i := 0; b.Len() <= 3*4*maxTokens; i++ { // the words are ASCII: bytes are characters
		b.WriteString(" " + extra[i%len(extra)])
	}
	return b.String()
}

// everyModel is the records of every model of every key's list, as if one
// key saw them all.
func (g *Gateway) everyModel() []any {
	var out []any
	for _, kind := range keyKinds {
		for _, m := range g.lists[kind] {
			out = append(out, m.record())
		}
	}
	return out
}

// otherModel is the name of the model after the one named name in its
// family's list (the first after the last): another model a key of that
// family sees.
func (g *Gateway) otherModel(name string) string {
	for _, kind := range keyKinds {
		list := g.lists[kind]
		if i := slices.IndexFunc(list, func(m model) bool { return m.ID == name }); i >= 0 {
			return list[(i+1)%len(list)].ID
		}
	}
	return name + "-other"
}

// chatReasons and messagesReasons translate a stop reason into the other
// interface's word for it, as a gateway passing one backend's reasons
// through the other interface would.
var (
	chatReasons     = map[string]string{"end_turn": "stop", "max_tokens": "length"}
	messagesReasons = map[string]string{"stop": "end_turn", "length": "max_tokens"}
)

// textInBlockStart holds back a messages stream's content_block_start, adds
// the text of each delta to its content_block instead of sending the delta,
// and sends it just before content_block_stop.
func textInBlockStart(s *stream, ev event) []event {
	if s.c.ep != epMessages {
		return []event{ev}
	}
	switch ev.kind {
	case "content_block_start":
		s.held = append(s.held, ev)
		return nil
	case "content_block_delta":
		if len(s.held) > 0 {
			blk := s.held[0].data.(map[string]any)["content_block"].(map[string]any)
			blk["text"] = blk["text"].(string) + ev.data.(map[string]any)["delta"].(map[string]any)["text"].(string)
			return nil
		}
	case "content_block_stop":
		out := append(s.held, ev)
		s.held = nil
		return out
	}
	return []event{ev}
}

// cumulativeDeltas makes each text delta of a chat or messages stream carry
// the whole text so far, as a gateway re-sending its buffer on every chunk.
func cumulativeDeltas(s *stream, ev event) []event {
	d, ok := ev.data.(map[string]any)
	if !ok {
		return []event{ev}
	}
	repeat := func(delta map[string]any, key string) {
		if t, ok := delta[key].(string); ok && t != "" {
			s.text += t
			delta[key] = s.text
		}
	}
	switch {
	case s.c.ep == epChat:
		for _, c := range d["choices"].([]any) {
			if delta, ok := c.(map[string]any)["delta"].(map[string]any); ok {
				repeat(delta, "content")
			}
		}
	case s.c.ep == epMessages && ev.kind == "content_block_delta":
		repeat(d["delta"].(map[string]any), "text")
	}
	return []event{ev}
}

// afterMessageStop makes an event hook that sends extra after a messages
// stream's message_stop.
func afterMessageStop(extra event) func(*stream, event) []event {
	return func(s *stream, ev event) []event {
		if s.c.ep != epMessages || ev.kind != "message_stop" {
			return []event{ev}
		}
		more := extra
		more.data = maps.Clone(extra.data.(map[string]any))
		return []event{ev, more}
	}
}

// stopReasonOnStop makes an event hook that holds back a messages stream's
// message_delta and moves the stop_reason out of its delta onto
// message_stop; it then sends both, or message_stop alone without
// keepDelta.
func stopReasonOnStop(keepDelta bool) func(*stream, event) []event {
	return func(s *stream, ev event) []event {
		if s.c.ep != epMessages {
			return []event{ev}
		}
		switch ev.kind {
		case "message_delta":
			s.held = append(s.held, ev)
			return nil
		case "message_stop":
			held := s.held
			s.held = nil
			for _, h := range held {
				delta := h.data.(map[string]any)["delta"].(map[string]any)
				ev.data.(map[string]any)["stop_reason"] = delta["stop_reason"]
				delete(delta, "stop_reason")
			}
			if !keepDelta {
				return []event{ev}
			}
			return append(held, ev)
		}
		return []event{ev}
	}
}

// imageEventFieldsOff names, in each image stream event, another size and
// output_format than its image's.
func imageEventFieldsOff(s *stream, ev event) []event {
	if d, ok := ev.data.(map[string]any); ok && s.c.ep.images() {
		size := "1536x1024"
		if d["size"] == size {
			size = "1024x1024"
		}
		d["size"] = size
		d["output_format"] = map[string]string{"png": "webp", "jpeg": "png", "webp": "png"}[d["output_format"].(string)]
	}
	return []event{ev}
}

// streamModelOther names another model of the family in a stream: in each
// chat chunk, and in message_start's message.
func streamModelOther(s *stream, ev event) []event {
	d, ok := ev.data.(map[string]any)
	switch {
	case !ok:
	case s.c.ep == epChat:
		d["model"] = s.c.g.otherModel(d["model"].(string))
	case s.c.ep == epMessages && ev.kind == "message_start":
		m := d["message"].(map[string]any)
		m["model"] = s.c.g.otherModel(m["model"].(string))
	}
	return []event{ev}
}

// halvedWords stops the words at half of max_tokens, and reports the stop
// as one at the bound.
func halvedWords(words []string, maxTokens int) ([]string, bool) {
	return limitWords(words, (maxTokens+1)/2)
}

// speck makes a final image of format opaque but for four pixels at alpha
// 254, one near each corner: some transparency, but no transparent region.
func speck(format string) func([]byte) []byte {
	return func(b []byte) []byte {
		img, _, err := imagery.Decode(b)
		if err != nil {
			return b
		}
		r := img.Bounds()
		out := image.NewNRGBA(r)
		draw.Draw(out, r, img, r.Min, draw.Src)
		for _, p := range []image.Point{{r.Min.X + 1, r.Min.Y + 1}, {r.Max.X - 2, r.Min.Y + 1}, {r.Min.X + 1, r.Max.Y - 2}, {r.Max.X - 2, r.Max.Y - 2}} {
			c := out.NRGBAAt(p.X, p.Y)
			c.A = 254
			out.SetNRGBA(p.X, p.Y, c)
		}
		enc, err := imagery.Encode(out, format, nil)
		if err != nil {
			return b
		}
		return enc
	}
}

// onEdits makes an imageJob hook that acts on image edits only.
func onEdits(vet func(in *imageRequest, files *formFiles, j *imageJob) error) func(endpoint, *imageRequest, *formFiles, *imageJob) error {
	return func(ep endpoint, in *imageRequest, files *formFiles, j *imageJob) error {
		if ep != epEdits {
			return nil
		}
		return vet(in, files, j)
	}
}
