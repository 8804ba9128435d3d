package conformance_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance"
	"github.com/gwconform/gwconform/conformance/refgateway"
	"github.com/gwconform/gwconform/conformance/results"
)

// faultCase says which case must fail, and why, when a fault is on.
type faultCase struct {
	fault string
	cases []string // case ids to run with the fault on
	fails string   // the case that must fail
	check string   // the reason's check
	says  string   // text the reason must hold (message, where, expected or actual)
}

var faultCases = []faultCase{
	{"error-field", []string{"gen-basic"}, "gen-basic", "json", "error field"},
	{"empty-data", []string{"gen-basic"}, "gen-basic", "json", "empty data list"},
	{"bad-base64", []string{"gen-basic", "edit-stream-partials-1"}, "edit-stream-partials-1", "image", "not valid base64"},
	{"undecodable-image", []string{"gen-basic"}, "gen-basic", "image", "does not decode"},
	{"wrong-format", []string{"edit-opaque-jpeg"}, "edit-opaque-jpeg", "image", "format differs"},
	{"alpha-dropped", []string{"edit-transparent-png"}, "edit-transparent-png", "image", "no real alpha channel (spec 4.5)"},
	{"size-mismatch", []string{"gen-basic"}, "gen-basic", "image", "size differs"},
	{"fewer-images", []string{"edit-n-2"}, "edit-n-2", "image", "differs from n"},
	{"chat-no-done", []string{"chat-stream"}, "chat-stream", "sse", "chat.done-missing"},
	{"messages-no-stop", []string{"messages-stream"}, "messages-stream", "sse", "messages.stop-missing"},
	{"messages-out-of-order", []string{"messages-stream"}, "messages-stream", "sse", "messages.order"},
	{"image-stream-no-completed", []string{"gen-stream-partials-2"}, "gen-stream-partials-2", "sse", "images.completed-missing"},
	{"preview-overflow", []string{"gen-stream-partials-1"}, "gen-stream-partials-1", "sse", "images.too-many-previews"},
	{"wrong-event-family", []string{"edit-stream-partials-1"}, "edit-stream-partials-1", "sse", "images.wrong-family"},
	{"stream-cut", []string{"chat-stream"}, "chat-stream", "sse", "stream.incomplete"},
	{"wrong-content-type", []string{"chat-json"}, "chat-json", "content_type", "text/plain"},
	{"accept-invalid", []string{"chat-no-model"}, "chat-no-model", "status", "HTTP status 200, want 400"},
	{"wrong-404", []string{"messages-unknown-model-404"}, "messages-unknown-model-404", "status", "HTTP status 400, want 404"},
	{"model-missing", []string{"models-image-lists-gen-image-2"}, "models-image-lists-gen-image-2", "json", "gen-image-2"},
	{"missing-field", []string{"chat-json"}, "chat-json", "schema", "content"},
	{"wrong-type", []string{"chat-json"}, "chat-json", "schema", "index"},
	{"chat-id-changes", []string{"chat-stream", "chat-stream-strict"}, "chat-stream-strict", "sse-strict", "chat.id-changed"},
	{"messages-unnamed-events", []string{"messages-stream", "messages-stream-strict"}, "messages-stream-strict", "sse-strict", "messages.event-name-missing"},
	{"block-index-gap", []string{"messages-stream", "messages-stream-strict"}, "messages-stream-strict", "sse-strict", "messages.block-index"},
	{"preview-index-order", []string{"edit-stream-partials-3", "edit-stream-strict"}, "edit-stream-strict", "sse-strict", "images.preview-index-order"},
	{"max-tokens-ignored", []string{"messages-alt-max-tokens-1024"}, "messages-alt-max-tokens-1024", "json", "stop_reason"},
	// The checks tightened by issue 9: each reason names its spec section.
	{"lists-identical", []string{"models-lists-differ-text"}, "models-lists-differ-text", "json", "(spec 2.1: the list differs per key)"},
	{"image-any-key", []string{"gen-text-key-refused"}, "gen-text-key-refused", "status", "(spec 5.2/image-permission)"},
	{"image-any-key", []string{"edit-text-key-refused"}, "edit-text-key-refused", "status", "(spec 5.2/image-permission)"},
	{"created-ms", []string{"gen-basic"}, "gen-basic", "json", "milliseconds, or a clock far off (spec 2.2"},
	{"created-hours-off", []string{"gen-basic", "gen-created-now"}, "gen-created-now", "json", "not the time of this exchange (spec 2.2)"},
	{"background-mismatch", []string{"gen-basic"}, "gen-basic", "image", "background says transparent but the image is not (spec 2.2"},
	{"alpha-speck", []string{"edit-transparent-png"}, "edit-transparent-png", "image", "no real alpha channel (spec 4.5)"},
	{"model-other", []string{"chat-json"}, "chat-json", "json", "not the model requested (spec 2.3, 2.4"},
	{"model-other", []string{"messages-json"}, "messages-json", "json", "not the model requested (spec 2.3, 2.4"},
	{"model-dated", []string{"chat-json", "messages-json", "chat-json-strict"}, "chat-json-strict", "json", "not the model requested (spec 2.3, 2.4"},
	{"stop-reason-other", []string{"messages-json"}, "messages-json", "json", "not one of the allowed (spec 2.4/stop-reason)"},
	{"stop-reason-other", []string{"messages-stream"}, "messages-stream", "json", "not one of the allowed (spec 6.3/stop-reason)"},
	{"finish-reason-other", []string{"chat-json"}, "chat-json", "json", "value differs (spec 2.3/finish-reason)"},
	{"finish-reason-other", []string{"chat-stream", "chat-stream-strict"}, "chat-stream-strict", "json", "value differs (spec 2.3/finish-reason)"},
	{"text-in-block-start", []string{"messages-stream"}, "messages-stream", "sse", "delta.text (spec 6.3) (messages.no-text-delta)"},
	{"max-tokens-halved", []string{"messages-alt-max-tokens-1024"}, "messages-alt-max-tokens-1024", "json", "value differs (spec 8/max-tokens-1024-alt"},
	{"empty-text-at-bound", []string{"messages-max-tokens-256"}, "messages-max-tokens-256", "json", "value is empty (spec 4.3/max-tokens-supplied, 8/max-tokens-256)"},
	{"chat-usage-over", []string{"chat-json", "chat-json-strict"}, "chat-json-strict", "json", "above the maximum (spec 2.3/model, 4.2/max-tokens)"},
	{"file-id-ignored", []string{"edit-json-image-file-id"}, "edit-json-image-file-id", "status", "want 400 (spec 4.5/rule-2, 7/edit-file-id)"},
	{"file-id-ignored", []string{"edit-json-mask-file-id"}, "edit-json-mask-file-id", "status", "want 400 (spec 4.5/rule-2, 7/edit-file-id)"},
	{"default-model", []string{"messages-unknown-model-404", "chat-unknown-model-404"}, "chat-unknown-model-404", "status", "want 404 (spec 9/retired-404-chat)"},
	{"default-model", []string{"gen-unknown-model-404"}, "gen-unknown-model-404", "status", "want 404 (spec 9/retired-404-images)"},
	{"default-model", []string{"edit-unknown-model-404"}, "edit-unknown-model-404", "status", "want 404 (spec 9/retired-404-images)"},
}

// undetectable lists faults no spec-stated check can see, with the reason.
var undetectable = map[string]string{
	// The spec states no relation between an edit's input and output pixels
	// that a client could check; the fault exists for the gateway's own tests.
	"reference-ignored": "spec 4.5 states no checkable relation between reference and result",
}

// TestEveryFaultIsCaught switches each fault of the reference gateway on and
// asserts that the case guarding its rule fails with the expected reason,
// and that, with no fault, the same cases pass.
func TestEveryFaultIsCaught(t *testing.T) {
	covered := map[string]bool{}
	for _, fc := range faultCases {
		covered[fc.fault] = true
	}
	for _, f := range refgateway.Faults() {
		_, skip := undetectable[f.Name]
		assert.True(t, covered[f.Name] || skip, "fault %q has no case in faultCases", f.Name)
	}

	suite := loadSuite(t)
	run := func(t *testing.T, faults []string, ids []string) map[string]results.Result {
		loc := startLocal(t, refgateway.Config{Faults: faults})
		calls, err := conformance.Plan(suite.Catalog, loc.target, conformance.Selection{Cases: ids})
		require.NoError(t, err)
		require.NotEmpty(t, calls, "no case matches %v", ids)
		runner := &conformance.Runner{Suite: suite, Target: loc.target, Options: conformance.Options{MaxRetries: -1}}
		got := map[string]results.Result{}
		runner.Run(context.Background(), calls, func(r results.Result) {
			// One model per case is enough to see the verdict; keep the first failure.
			if prev, ok := got[r.Case]; !ok || (prev.Status == results.StatusPass && r.Status != results.StatusPass) {
				got[r.Case] = r
			}
		})
		return got
	}
	for _, fc := range faultCases {
		t.Run(fc.fault, func(t *testing.T) {
			t.Parallel()
			clean := run(t, nil, fc.cases)
			for id, r := range clean {
				assert.Equal(t, results.StatusPass, r.Status, "without the fault, %s must pass: %v", id, r.Reasons)
			}
			broken := run(t, []string{fc.fault}, fc.cases)
			r, ok := broken[fc.fails]
			require.True(t, ok, "case %s did not run", fc.fails)
			// A fault only a strict case catches must not fail the counted
			// (verified and negative) cases run beside it.
			for id, other := range broken {
				if id != fc.fails && r.Tier == results.TierStrict && (other.Tier == results.TierVerified || other.Tier == results.TierNegative) {
					assert.Equal(t, results.StatusPass, other.Status, "strict fault %s failed counted case %s: %v", fc.fault, id, other.Reasons)
				}
			}
			require.Equal(t, results.StatusFail, r.Status, "with fault %s, %s must fail", fc.fault, fc.fails)
			assert.True(t, hasReason(r, fc.check, fc.says), "with fault %s, %s fails for other reasons: %v", fc.fault, fc.fails, r.Reasons)
		})
	}
}

func hasReason(r results.Result, check, says string) bool {
	for _, reason := range r.Reasons {
		text := strings.Join([]string{reason.Message, reason.Where, reason.Expected, reason.Actual}, " ")
		if reason.Check == check && strings.Contains(text, says) {
			return true
		}
	}
	return false
}
