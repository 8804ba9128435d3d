package refgateway

import (
	"encoding/base64"
	"encoding/json"
	"image/color"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// section7Row is one row of the spec's error table (plus the 404 rows of 1
// and 9, and the refusal of 5.2).
type section7Row struct {
	name   string
	method string
	path   string
	key    string
	body   func(t *testing.T) any
	want   int
	lets   []string // the faults that answer it 200 instead
}

var (
	refOnce sync.Once
	refA    []byte // 64x64 references: small inputs keep tests fast
	refB    []byte
	maskA   []byte
)

func refs(t testing.TB) ([]byte, []byte, []byte) {
	refOnce.Do(func() {
		refA = gradientPNG(t, 64, 64, false)
		refB = gradientPNG(t, 64, 64, true)
		maskA = testPNG(t, 64, 64, color.NRGBA{A: 255}, true)
	})
	return refA, refB, maskA
}

// section7Rows are the rows for gateway s, their models named as s names
// them.
func section7Rows(s *testServer) []section7Row {
	chat := func(m map[string]any) func(*testing.T) any { return func(*testing.T) any { return m } }
	editJSON := func(extra map[string]any) func(*testing.T) any {
		return func(t *testing.T) any {
			a, _, _ := refs(t)
			m := map[string]any{"model": s.model("gen-image-2.5-flare"), "prompt": "make it blue", "size": "1024x1024",
				"images": []any{map[string]any{"image_url": dataURL(a)}}}
			for k, v := range extra {
				if v == nil {
					delete(m, k)
				} else {
					m[k] = v
				}
			}
			return m
		}
	}
	editMultipart := func(fields map[string]string, withImage bool) func(*testing.T) any {
		return func(t *testing.T) any {
			a, _, _ := refs(t)
			f := map[string]string{"model": s.model("gen-image-2.5-flare"), "size": "1024x1024"}
			for k, v := range fields {
				f[k] = v
			}
			if withImage {
				return makeMultipart(t, f, formFile{"image", a})
			}
			return makeMultipart(t, f)
		}
	}
	withURL := func(t *testing.T, ref []byte) map[string]any {
		return map[string]any{"image_url": dataURL(ref), "file_id": "file-abc"}
	}
	msgs := []any{map[string]any{"role": "user", "content": "hello"}}
	invalid := []string{fAcceptInvalid}
	fileID := []string{fAcceptInvalid, fFileIDIgnored}
	unknown := []string{fDefaultModel}
	anyKey := []string{fImageAnyKey}
	return []section7Row{
		{"chat without model", "POST", "/v1/chat/completions", keys.Text, chat(map[string]any{"messages": msgs}), 400, invalid},
		{"chat without messages", "POST", "/v1/chat/completions", keys.Text, chat(map[string]any{"model": s.model("gen-5.5")}), 400, invalid},
		{"messages without model", "POST", "/v1/messages", keys.Messages, chat(map[string]any{"max_tokens": 16, "messages": msgs}), 400, invalid},
		{"messages retired model", "POST", "/v1/messages", keys.Messages, chat(map[string]any{"model": s.model("msg-sonnet-4-6"), "max_tokens": 16, "messages": msgs}), 404, nil},
		{"messages unknown model", "POST", "/v1/messages", keys.Messages, chat(map[string]any{"model": s.model("msg-nope-1"), "max_tokens": 16, "messages": msgs}), 404, nil},
		{"alt unknown model", "POST", "/v1/messages", keys.Alt, chat(map[string]any{"model": s.model("msg-sonnet-5"), "max_tokens": 16, "messages": msgs}), 404, nil},
		{"alt without max_tokens", "POST", "/v1/messages", keys.Alt, chat(map[string]any{"model": s.model("alt-flash"), "messages": msgs}), 400, []string{fAltMaxTokensOptional}},
		{"chat unknown model", "POST", "/v1/chat/completions", keys.Text, chat(map[string]any{"model": s.model("gen-nope-1"), "messages": msgs}), 404, unknown},
		{"responses unknown model", "POST", "/v1/responses", keys.Text, chat(map[string]any{"model": s.model("gen-nope-1"), "input": "hello"}), 404, unknown},
		{"generation unknown model", "POST", "/v1/images/generations", keys.Image, chat(map[string]any{"model": s.model("gen-image-0"), "prompt": "x", "size": "1024x1024"}), 404, unknown},
		{"edit unknown model", "POST", "/v1/images/edits", keys.Image, editJSON(map[string]any{"model": s.model("gen-image-0")}), 404, unknown},
		{"generation with the text key", "POST", "/v1/images/generations", keys.Text, chat(map[string]any{"model": s.model("gen-image-2"), "prompt": "x", "size": "1024x1024"}), 403, anyKey},
		{"edit with the messages key", "POST", "/v1/images/edits", keys.Messages, editJSON(nil), 403, anyKey},
		{"edit json without prompt", "POST", "/v1/images/edits", keys.Image, editJSON(map[string]any{"prompt": nil}), 400, invalid},
		{"edit multipart without prompt", "POST", "/v1/images/edits", keys.Image, editMultipart(nil, true), 400, invalid},
		{"edit json without reference", "POST", "/v1/images/edits", keys.Image, editJSON(map[string]any{"images": nil}), 400, invalid},
		{"edit json empty images", "POST", "/v1/images/edits", keys.Image, editJSON(map[string]any{"images": []any{}}), 400, invalid},
		{"edit multipart without reference", "POST", "/v1/images/edits", keys.Image, editMultipart(map[string]string{"prompt": "x"}, false), 400, invalid},
		{"edit images[].file_id", "POST", "/v1/images/edits", keys.Image, editJSON(map[string]any{"images": []any{map[string]any{"file_id": "file-abc"}}}), 400, []string{fAcceptInvalid, fFileIDResolved}},
		{"edit mask.file_id", "POST", "/v1/images/edits", keys.Image, editJSON(map[string]any{"mask": map[string]any{"file_id": "file-abc"}}), 400, fileID},
		// Rule 2 alone: the reference and the mask are valid beside the file_id.
		{"edit images[].file_id beside image_url", "POST", "/v1/images/edits", keys.Image, func(t *testing.T) any {
			a, _, _ := refs(t)
			return editJSON(map[string]any{"images": []any{withURL(t, a)}})(t)
		}, 400, fileID},
		{"edit mask.file_id beside image_url", "POST", "/v1/images/edits", keys.Image, func(t *testing.T) any {
			_, _, m := refs(t)
			return editJSON(map[string]any{"mask": withURL(t, m)})(t)
		}, 400, fileID},
		{"edit stream partial_images -1", "POST", "/v1/images/edits", keys.Image, editJSON(map[string]any{"stream": true, "partial_images": -1}), 400, invalid},
		{"edit stream partial_images 4", "POST", "/v1/images/edits", keys.Image, editJSON(map[string]any{"stream": true, "partial_images": 4}), 400, invalid},
		{"edit multipart partial_images 4", "POST", "/v1/images/edits", keys.Image, editMultipart(map[string]string{"prompt": "x", "stream": "true", "partial_images": "4"}, true), 400, invalid},
		{"generation stream partial_images -1", "POST", "/v1/images/generations", keys.Image, chat(map[string]any{"prompt": "x", "size": "1024x1024", "stream": true, "partial_images": -1}), 400, invalid},
		{"generation stream partial_images 4", "POST", "/v1/images/generations", keys.Image, chat(map[string]any{"prompt": "x", "size": "1024x1024", "stream": true, "partial_images": 4}), 400, invalid},
	}
}

func TestSection7(t *testing.T) {
	eachNaming(t, func(t *testing.T, s *testServer) {
		for _, row := range section7Rows(s) {
			t.Run(row.name, func(t *testing.T) {
				r := s.do(t, row.method, row.path, row.key, row.body(t))
				assert.Equal(t, row.want, r.status, "%s", r.body)
				checkErrorBody(t, r, row.path)
			})
		}
	})
}

// checkErrorBody asserts the documented error shape of the path.
func checkErrorBody(t *testing.T, r resp, path string) {
	t.Helper()
	require.Equal(t, "application/json", mediaType(r))
	m := r.json(t)
	if path == "/v1/messages" {
		assert.Equal(t, "error", m["type"])
		typ, _ := field(m, "error.type")
		msg, _ := field(m, "error.message")
		assert.NotEmpty(t, typ)
		assert.NotEmpty(t, msg)
		return
	}
	for _, f := range []string{"message", "type"} {
		x, _ := field(m, "error."+f)
		assert.NotEmpty(t, x, "error.%s", f)
	}
	e, _ := m["error"].(map[string]any)
	assert.Contains(t, e, "param")
	assert.Contains(t, e, "code")
}

// scenario is one request and its validator.
type scenario struct {
	name  string
	shows []string // faults this scenario must reveal
	run   func(t *testing.T, s *testServer, opts ...reqOpt) violations
}

const chatPrompt = "Write 20 words about rivers"

func scenarios() []scenario {
	jsonImageFaults := []string{fErrorField, fEmptyData, fBadBase64, fUndecodable, fWrongFormat, fSizeMismatch, fMissingField, fWrongType, fWrongContentType,
		fCreatedMillis, fCreatedHoursOff, fBackgroundMismatch, fSuccess201, fImageRoutesMissing, fSuccess300,
		fGenerationIDOther, fUsageMissing, fTotalTokensOff, fUsageInputStrings, fUsageOutputStrings, fBackgroundAuto}
	return []scenario{
		{"models", []string{fModelMissing, fMissingField, fWrongType, fWrongContentType, fListsIdentical, fSuccess201,
			fSuccess300, fListDataObject, fModelObjectOther, fModelIDRenamed, fModelsList500},
			func(t *testing.T, s *testServer, o ...reqOpt) violations {
				r := s.do(t, "GET", "/v1/models", keys.Image, nil, o...)
				v := validateModels(r, s.model("gen-image-2"))
				// 2.1: the list differs per key.
				if ids := listedIDs(r); len(ids) > 0 && slices.Equal(ids, listedIDs(s.do(t, "GET", "/v1/models", keys.Text, nil, o...))) {
					v.add(fListsIdentical)
				}
				return v
			}},
		{"chat-json", []string{fMissingField, fWrongType, fWrongContentType, fMaxTokensIgnored, fMaxTokensHalved, fModelOther, fModelDated, fFinishReasonOther, fChatUsageOver,
			fSuccess201, fChatTextOver, fChatRefusesAll, fChatNoChoice,
			fVerifiedModel404, fStreamByDefault, fSuccess300, fChatObjectOther, fChoicesObject, fRoleOther, fStringContentRefused, fTemperatureRefused, fChatUnversioned},
			func(t *testing.T, s *testServer, o ...reqOpt) violations {
				body := map[string]any{"model": s.model("gen-5.5"), "max_tokens": 6, "temperature": 0.2, "messages": []any{map[string]any{"role": "user", "content": chatPrompt}}}
				return validateChatJSON(s.do(t, "POST", "/v1/chat/completions", keys.Text, body, o...), s.model("gen-5.5"), 6)
			}},
		{"chat-stream", []string{fChatNoDone, fChatIDChanges, fStreamCut, fMissingField, fWrongType, fWrongContentType, fMaxTokensIgnored, fMaxTokensHalved, fFinishReasonOther,
			fCumulativeDeltas, fNoFinalBlankLine, fStreamModelOther, fChatRefusesAll,
			fVerifiedModel404, fStreamIgnored, fChatDataNotJSON,
			fChatIDDropped, fFinishReasonCleared, fChunkModelDropped, fChatUsageRepeated, fErrorMemberNull, fNoBlankLines, fChatUnversioned, fDataSplit},
			func(t *testing.T, s *testServer, o ...reqOpt) violations {
				body := map[string]any{"model": s.model("gen-5.5"), "stream": true, "max_tokens": 6, "messages": []any{map[string]any{"role": "user", "content": chatPrompt}}}
				return validateChatStream(s.do(t, "POST", "/v1/chat/completions", keys.Text, body, o...), s.model("gen-5.5"), 6)
			}},
		{"messages-json", []string{fMissingField, fWrongType, fWrongContentType, fMaxTokensIgnored, fMaxTokensHalved, fModelOther, fModelDated, fStopReasonOther,
			fSuccess201, fMessagesUsageOver, fModelFixed,
			fVerifiedModel404, fStreamByDefault, fSuccess300, fRoleOther, fContentString, fBlockTypeOther, fBlockTextParts, fCacheTokensNull,
			fStringContentRefused, fAltImageRefused, fMaxTokensRefused, fMessagesPrefixed},
			func(t *testing.T, s *testServer, o ...reqOpt) violations {
				// Two models of two keys: a gateway naming one fixed model
				// names the same wrong one for both, another model differs.
				v := violations{}
				var named []any
				for _, c := range []struct{ model, key string }{{s.model("msg-haiku-4-5-20251001"), keys.Messages}, {s.model("alt-flash"), keys.Alt}} {
					body := map[string]any{"model": c.model, "max_tokens": 6, "messages": []any{map[string]any{"role": "user", "content": chatPrompt}}}
					r := s.do(t, "POST", "/v1/messages", c.key, body, o...)
					maps.Copy(v, validateMessagesJSON(r, c.model, 6))
					var m map[string]any
					json.Unmarshal(r.body, &m)
					named = append(named, m["model"])
				}
				// 4.3: the alternative text model takes one base64 PNG image.
				a, _, _ := refs(t)
				body := map[string]any{"model": s.model("alt-flash"), "max_tokens": 6, "messages": []any{map[string]any{"role": "user", "content": []any{
					map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png", "data": base64.StdEncoding.EncodeToString(a)}},
					map[string]any{"type": "text", "text": chatPrompt},
				}}}}
				maps.Copy(v, validateMessagesJSON(s.do(t, "POST", "/v1/messages", keys.Alt, body, o...), s.model("alt-flash"), 6))
				if v[fModelOther] && named[0] == named[1] {
					delete(v, fModelOther)
					v.add(fModelFixed)
				}
				return v
			}},
		// Strict: forms client libraries send beyond the verified rows,
		// answered as the verified forms are: stream false as an omitted
		// stream (LangChain JS), text blocks as a string (the Anthropic
		// SDKs' helpers). Only these two faults are read here; the rest of
		// the answers is the verified scenarios'.
		{"client-forms", []string{fStreamFalseStreams, fTextBlocksRefused},
			func(t *testing.T, s *testServer, o ...reqOpt) violations {
				v := violations{}
				for _, c := range []struct{ path, key, model string }{
					{"/v1/chat/completions", keys.Text, s.model("gen-5.5")}, {"/v1/messages", keys.Messages, s.model("msg-sonnet-5")},
				} {
					body := map[string]any{"model": c.model, "max_tokens": 6, "stream": false, "messages": []any{map[string]any{"role": "user", "content": chatPrompt}}}
					if mediaType(s.do(t, "POST", c.path, c.key, body, o...)) == "text/event-stream" {
						v.add(fStreamFalseStreams)
					}
				}
				blocks := map[string]any{"model": s.model("msg-sonnet-5"), "max_tokens": 6, "messages": []any{
					map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": chatPrompt}}}}}
				if f := refusalFault(s.do(t, "POST", "/v1/messages", keys.Messages, blocks, o...)); f == fTextBlocksRefused {
					v.add(f)
				}
				return v
			}},
		{"messages-stream", []string{fMessagesNoStop, fMessagesOutOfOrder, fUnnamedEvents, fBlockIndexGap, fStreamCut, fMissingField, fWrongType, fWrongContentType,
			fMaxTokensIgnored, fMaxTokensHalved, fStopReasonOther, fTextInBlockStart, fCumulativeDeltas, fErrorAfterStop, fEventNameOther, fUntypedEvents,
			fNoFinalBlankLine, fEventAfterStop, fStopReasonOnStop, fStreamModelOther,
			fStreamIgnored, fStartMessageMissing, fContentBlockMissing, fTextDeltaUntyped, fDeltaUsageMissing, fMaxTokensRefused, fNoBlankLines, fMessagesPrefixed, fDataSplit, fMessagesNoDelta},
			func(t *testing.T, s *testServer, o ...reqOpt) violations {
				body := map[string]any{"model": s.model("msg-sonnet-5"), "stream": true, "max_tokens": 6, "messages": []any{map[string]any{"role": "user", "content": chatPrompt}}}
				return validateMessagesStream(s.do(t, "POST", "/v1/messages", keys.Messages, body, o...), s.model("msg-sonnet-5"), 6)
			}},
		{"images-json", append(slices.Clone(jsonImageFaults), fAlphaDropped, fAlphaSpeck, fFewerImages, fQualityOther, fGenSizeIgnored),
			func(t *testing.T, s *testServer, o ...reqOpt) violations {
				body := map[string]any{"model": s.model("gen-image-2.5-flare"), "prompt": "a lighthouse", "n": 2, "size": "1024x1024", "background": "transparent", "output_format": "png", "quality": "high"}
				v, _ := validateImageJSON(s.do(t, "POST", "/v1/images/generations", keys.Image, body, o...),
					imageExpect{n: 2, format: "png", w: 1024, h: 1024, transparent: true, background: "transparent", quality: "high"})
				return v
			}},
		{"images-json-background-auto", append(slices.Clone(jsonImageFaults), fBackgroundEcho, fGenNDefault2, fGenSizeIgnored),
			func(t *testing.T, s *testServer, o ...reqOpt) violations {
				generate := func(background string) violations {
					body := map[string]any{"model": s.model("gen-image-2.5-flare"), "prompt": "a lighthouse", "size": "1024x1024", "background": background, "output_format": "webp"}
					v, _ := validateImageJSON(s.do(t, "POST", "/v1/images/generations", keys.Image, body, o...),
						imageExpect{n: 1, format: "webp", w: 1024, h: 1024, background: background})
					return v
				}
				v := generate("auto")
				// An auto echoed and an auto said whatever was requested
				// look alike here: an opaque request tells them apart.
				if v[fBackgroundEcho] && generate("opaque")[fBackgroundAuto] {
					delete(v, fBackgroundEcho)
					v.add(fBackgroundAuto)
				}
				return v
			}},
		{"edit-default-model", append(slices.Clone(jsonImageFaults), fEditDefaultImage2, fEditNDefault2, fEditJSONRefused, fPNGCompressionNeeded),
			func(t *testing.T, s *testServer, o ...reqOpt) violations {
				a, _, _ := refs(t)
				// No model, and a quality only the 2.5 models take (4.5):
				// gen-2.5-flare serves it, gen-image-2 would refuse it.
				body := map[string]any{"prompt": "paint it", "size": "1024x1024", "quality": "xhigh", "images": []any{map[string]any{"image_url": dataURL(a)}}}
				r := s.do(t, "POST", "/v1/images/edits", keys.Image, body, o...)
				if r.status == 400 && refusalFault(r) == "" {
					return violations{fEditDefaultImage2: true}
				}
				v, _ := validateImageJSON(r, imageExpect{n: 1, format: "png", w: 1024, h: 1024})
				return v
			}},
		{"edit-stream", []string{fImageNoCompleted, fPreviewIndexOrder, fPreviewOverflow, fWrongEventFamily, fStreamCut, fMissingField, fWrongType, fWrongContentType, fBadBase64, fUndecodable, fWrongFormat, fSizeMismatch,
			fEventNameOther, fNoFinalBlankLine, fImageEventFields, fImageRoutesMissing,
			fStreamIgnored, fPreviewsCompleted, fErrorMemberNull, fEditMultipartRefused, fPNGCompressionNeeded, fNoBlankLines, fDataSplit},
			func(t *testing.T, s *testServer, o ...reqOpt) violations {
				a, _, _ := refs(t)
				body := makeMultipart(t, map[string]string{"model": s.model("gen-image-2.5-sunburst"), "prompt": "add a moon", "size": "1024x1024", "stream": "true", "partial_images": "1"}, formFile{"image", a})
				return validateImageStream(s.do(t, "POST", "/v1/images/edits", keys.Image, body, o...),
					imageExpect{n: 1, format: "png", w: 1024, h: 1024, family: "image_edit", partial: 1})
			}},
		{"edit-reference", append(slices.Clone(jsonImageFaults), fReferenceIgnored, fEditNDefault2, fEditJSONRefused, fPNGCompressionNeeded),
			func(t *testing.T, s *testServer, o ...reqOpt) violations {
				a, b, _ := refs(t)
				exp := imageExpect{n: 1, format: "png", w: 1024, h: 1024}
				edit := func(ref []byte) (violations, []*decoded) {
					body := map[string]any{"model": s.model("gen-image-2.5-flare"), "prompt": "paint it", "size": "1024x1024",
						"images": []any{map[string]any{"image_url": dataURL(ref)}}}
					return validateImageJSON(s.do(t, "POST", "/v1/images/edits", keys.Image, body, o...), exp)
				}
				va, ia := edit(a)
				_, ib := edit(b)
				if len(ia) == 1 && len(ib) == 1 && ia[0] != nil && ib[0] != nil && ia[0].img != nil && ib[0].img != nil && ia[0].err == nil && ib[0].err == nil {
					da, _ := decodeInput(a)
					db, _ := decodeInput(b)
					// Each edit must look more like its own reference than like the other one.
					if Likeness(ia[0].img, da)-Likeness(ia[0].img, db) < 0.3 || Likeness(ib[0].img, db)-Likeness(ib[0].img, da) < 0.3 {
						va.add(fReferenceIgnored)
					}
				}
				return va
			}},
		// Issue 17, point 3 (sections 4.5 to 9): values and shapes the spec
		// verifies, each sent in a valid request that one fault refuses.
		{"verified-values", []string{fEditNDefault2, fEditSizeDefault1024, fQualityMaxRefused, fImage2QualityRefused, fOpaqueRefused,
			fBackgroundAutoRefused, fJPEGZeroRefused, fWebPCompressionRefused, fPartialImages3Refused, fTwoRefsRefused, fJSONMaskRefused,
			fImageArrayIgnored, fMultipartMaskRefused, fReference1024Refused, fMissingKeyServed, fImageRoutesMissing,
			fGenNDefault2, fGenSizeDefault1024, fGenQualityAutoRefused, fGenModelRequired, fEditJSONRefused, fEditMultipartRefused, fPNGCompressionNeeded},
			func(t *testing.T, s *testServer, o ...reqOpt) violations {
				return verifiedValues(t, s, o...)
			}},
		{"section7", []string{fAcceptInvalid, fWrong404, fFileIDIgnored, fDefaultModel, fImageAnyKey, fFileIDResolved, fImageRoutesMissing, fChatRefusesAll,
			fVerifiedModel404, fSuccess300, fStringContentRefused, fAltMaxTokensOptional, fEditJSONRefused, fPNGCompressionNeeded, fMaxTokensRefused, fChatUnversioned, fMessagesPrefixed},
			func(t *testing.T, s *testServer, o ...reqOpt) violations {
				v := violations{}
				// A row is judged only where its endpoint serves a valid
				// request, the control the suite's negatives have too: an
				// endpoint that refuses everything refuses its rows as well.
				a, _, _ := refs(t)
				unserved := map[string]bool{}
				for path, c := range map[string]struct {
					key  string
					body any
				}{
					"/v1/chat/completions":   {keys.Text, map[string]any{"model": s.model("gen-5.5"), "max_tokens": 6, "messages": []any{map[string]any{"role": "user", "content": chatPrompt}}}},
					"/v1/messages":           {keys.Alt, map[string]any{"model": s.model("alt-flash"), "max_tokens": 6, "messages": []any{map[string]any{"role": "user", "content": chatPrompt}}}},
					"/v1/images/generations": {keys.Image, map[string]any{"model": s.model("gen-image-2"), "prompt": "x", "size": "1024x1024"}},
					"/v1/images/edits": {keys.Image, map[string]any{"model": s.model("gen-image-2.5-flare"), "prompt": "x", "size": "1024x1024",
						"images": []any{map[string]any{"image_url": dataURL(a)}}}},
				} {
					if r := s.do(t, "POST", path, c.key, c.body, o...); r.status/100 != 2 {
						v.refused(r)
						unserved[path] = true
					}
				}
				rows := section7Rows(s)
				served := map[string]bool{} // rows answered 200
				for _, row := range rows {
					if unserved[row.path] {
						continue
					}
					r := s.do(t, row.method, row.path, row.key, row.body(t), o...)
					switch {
					case r.status == row.want:
					case r.status == 200:
						served[row.name] = true
					case row.want == 404 && r.status == 400:
						v.add(fWrong404)
					default:
						v.problem("%s: status %d", row.name, r.status)
					}
				}
				if len(served) > 0 {
					// The fault is the one that answers exactly these rows 200.
					explained := false
					for _, f := range []string{fAcceptInvalid, fFileIDIgnored, fDefaultModel, fImageAnyKey, fFileIDResolved, fAltMaxTokensOptional} {
						lets := map[string]bool{}
						for _, row := range rows {
							if slices.Contains(row.lets, f) {
								lets[row.name] = true
							}
						}
						if maps.Equal(served, lets) {
							v.add(f)
							explained = true
						}
					}
					if !explained {
						v.problem("answered 200: %v", slices.Sorted(maps.Keys(served)))
					}
				}
				return v
			}},
	}
}

// TestFaults switches each fault on for every scenario: where the fault
// applies the validator must find exactly that fault, elsewhere nothing.
func TestFaults(t *testing.T) {
	if testing.Short() {
		// Every fault through every scenario, under both namings: sequential
		// validation, ten times slower under the race detector for nothing
		// concurrent (make test runs it in its non-race pass).
		t.Skip("every fault × every scenario (make test runs it in its non-race pass)")
	}
	t.Parallel()
	scs := scenarios()
	eachNaming(t, func(t *testing.T, s *testServer) {
		t.Run("baseline", func(t *testing.T) {
			for _, sc := range scs {
				assert.Empty(t, sc.run(t, s).names(), sc.name)
			}
		})
		for _, f := range Faults() {
			t.Run(f.Name, func(t *testing.T) {
				t.Parallel()
				shown := 0
				for _, sc := range scs {
					got := sc.run(t, s, withFault(f.Name)).names()
					if slices.Contains(sc.shows, f.Name) {
						shown++
						assert.Equal(t, []string{f.Name}, got, "scenario %s", sc.name)
					} else {
						assert.Empty(t, got, "scenario %s", sc.name)
					}
				}
				assert.Positive(t, shown, "no scenario shows fault %s", f.Name)
			})
		}
	})
}

func TestFaultConfigAndHeader(t *testing.T) {
	_, err := New(Config{Faults: []string{"no-such-fault"}})
	require.Error(t, err)

	s := newServer(t, Config{Faults: []string{fModelMissing}})
	v := validateModels(s.do(t, "GET", "/v1/models", keys.Text, nil), "gen-5.5")
	assert.Equal(t, []string{fModelMissing}, v.names())
	// Header faults add to config faults.
	v = validateModels(s.do(t, "GET", "/v1/models", keys.Text, nil, withFault(fWrongContentType)), "gen-5.5")
	assert.ElementsMatch(t, []string{fModelMissing, fWrongContentType}, v.names())
	// An unknown name in the header is refused.
	r := s.do(t, "GET", "/v1/models", keys.Text, nil, withFault("nope"))
	assert.Equal(t, http.StatusBadRequest, r.status)

	list := Faults()
	assert.True(t, slices.IsSortedFunc(list, func(a, b Fault) int {
		if a.Name < b.Name {
			return -1
		}
		return 1
	}))
	for _, f := range list {
		assert.NotEmpty(t, f.Rule, f.Name)
		assert.NotEmpty(t, f.Spec, f.Name)
	}
}

var (
	ref1024Once sync.Once
	ref1024     []byte
)

// verifiedValues sends valid edits with the values and shapes 4.5 and 8
// verify, and a request without a key (5.4, strict): each refusal names
// the fault that refuses exactly that request.
func verifiedValues(t *testing.T, s *testServer, o ...reqOpt) violations {
	a, b, m := refs(t)
	ref1024Once.Do(func() { ref1024 = gradientPNG(t, 1024, 1024, false) })
	v := violations{}
	edit := func(extra map[string]any) map[string]any {
		body := map[string]any{"model": s.model("gen-image-2.5-flare"), "prompt": "paint it", "size": "1024x1024",
			"images": []any{map[string]any{"image_url": dataURL(a)}}}
		for k, x := range extra {
			if x == nil {
				delete(body, k)
			} else {
				body[k] = x
			}
		}
		return body
	}
	form := func(files ...formFile) multipartBody {
		return makeMultipart(t, map[string]string{"model": s.model("gen-image-2.5-sunburst"), "prompt": "paint it", "size": "1024x1024"}, files...)
	}
	for _, c := range []struct {
		fault string
		body  any
	}{
		{fQualityMaxRefused, edit(map[string]any{"quality": "max"})},
		{fImage2QualityRefused, edit(map[string]any{"model": s.model(modelImage2), "quality": "low"})},
		{fOpaqueRefused, edit(map[string]any{"background": "opaque", "output_format": "jpeg"})},
		{fBackgroundAutoRefused, edit(map[string]any{"background": "auto", "output_format": "webp"})},
		{fJPEGZeroRefused, edit(map[string]any{"output_format": "jpeg", "output_compression": 0})},
		{fWebPCompressionRefused, edit(map[string]any{"output_format": "webp", "output_compression": 50})},
		{fPartialImages3Refused, edit(map[string]any{"stream": true, "partial_images": 3})},
		{fTwoRefsRefused, edit(map[string]any{"images": []any{map[string]any{"image_url": dataURL(a)}, map[string]any{"image_url": dataURL(b)}}})},
		{fJSONMaskRefused, edit(map[string]any{"mask": map[string]any{"image_url": dataURL(m)}})},
		{fImageArrayIgnored, form(formFile{"image[]", a}, formFile{"image[]", b})},
		{fMultipartMaskRefused, form(formFile{"image", a}, formFile{"mask", m})},
		{fReference1024Refused, edit(map[string]any{"images": []any{map[string]any{"image_url": dataURL(ref1024)}}})},
	} {
		r := s.do(t, "POST", "/v1/images/edits", keys.Image, c.body, o...)
		switch {
		case refusalFault(r) != "":
			v.add(refusalFault(r))
		case r.status == http.StatusBadRequest:
			v.add(c.fault)
		case r.status == http.StatusNotFound && strings.Contains(string(r.body), "Route not found"):
			v.add(fImageRoutesMissing)
		}
	}
	// n and size omitted: one image (4.5: n default 1) of 1254x1254 (4.5).
	r := s.do(t, "POST", "/v1/images/edits", keys.Image, edit(map[string]any{"size": nil}), o...)
	if r.status == http.StatusNotFound && strings.Contains(string(r.body), "Route not found") {
		v.add(fImageRoutesMissing)
	}
	var res struct {
		Size string `json:"size"`
		Data []any  `json:"data"`
	}
	if r.status/100 == 2 && json.Unmarshal(r.body, &res) == nil {
		if res.Size == "1024x1024" {
			v.add(fEditSizeDefault1024)
		}
		if len(res.Data) > 1 {
			v.add(fEditNDefault2)
		}
	}
	// Generations (4.4): quality auto verified for gen-image-2; model, n
	// and size omitted give one 1254x1254 image of gen-image-2.5-flare.
	routeMissing := func(r resp) bool {
		return r.status == http.StatusNotFound && strings.Contains(string(r.body), "Route not found")
	}
	r = s.do(t, "POST", "/v1/images/generations", keys.Image, map[string]any{"model": s.model(modelImage2), "prompt": "paint it", "size": "1024x1024", "quality": "auto"}, o...)
	switch {
	case r.status == http.StatusBadRequest:
		v.add(fGenQualityAutoRefused)
	case routeMissing(r):
		v.add(fImageRoutesMissing)
	}
	r = s.do(t, "POST", "/v1/images/generations", keys.Image, map[string]any{"prompt": "paint it"}, o...)
	res.Size, res.Data = "", nil
	switch {
	case r.status == http.StatusBadRequest:
		v.add(fGenModelRequired)
	case routeMissing(r):
		v.add(fImageRoutesMissing)
	case r.status/100 == 2 && json.Unmarshal(r.body, &res) == nil:
		if res.Size == "1024x1024" {
			v.add(fGenSizeDefault1024)
		}
		if len(res.Data) > 1 {
			v.add(fGenNDefault2)
		}
	}
	// 5.4 (strict): a request without a key is refused.
	if r := s.do(t, "GET", "/v1/models", "", nil, o...); r.status != http.StatusUnauthorized {
		v.add(fMissingKeyServed)
	}
	return v
}

// TestNoBlankLinesEndsEveryStream: under no-blank-lines every event of
// every stream follows the one before with no blank line, and the stream's
// last event keeps its blank line, whatever the stream's last kind.
func TestNoBlankLinesEndsEveryStream(t *testing.T) {
	msgs := []any{map[string]any{"role": "user", "content": "Say hello"}}
	eachNaming(t, func(t *testing.T, s *testServer) {
		for _, tt := range []struct {
			name, path, key string
			body            map[string]any
		}{
			{"chat", "/v1/chat/completions", keys.Text, map[string]any{"model": s.model("gen-5.5"), "messages": msgs, "stream": true}},
			{"messages", "/v1/messages", keys.Messages, map[string]any{"model": s.model("msg-sonnet-5"), "max_tokens": 64, "messages": msgs, "stream": true}},
			{"responses", "/v1/responses", keys.Text, map[string]any{"model": s.model("gen-5.5"), "input": "Say hello", "stream": true}},
			{"two images", "/v1/images/generations", keys.Image, map[string]any{"model": s.model("gen-image-2.5-flare"), "prompt": "x", "size": "1024x1024",
				"quality": "low", "n": 2, "stream": true, "partial_images": 1}},
		} {
			t.Run(tt.name, func(t *testing.T) {
				b, err := json.Marshal(tt.body)
				require.NoError(t, err)
				r := s.do(t, "POST", tt.path, tt.key, b, withFault(fNoBlankLines))
				require.Equal(t, 200, r.status, "%s", r.body)
				body := string(r.body)
				assert.True(t, strings.HasSuffix(body, "\n\n"), "the last event keeps its blank line")
				assert.NotContains(t, strings.TrimSuffix(body, "\n\n"), "\n\n", "no blank line between events")
			})
		}
	})
}
