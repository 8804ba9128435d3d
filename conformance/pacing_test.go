package conformance_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance/execute"
	"github.com/gwconform/gwconform/conformance/plan"
	"github.com/gwconform/gwconform/conformance/refgateway"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
)

// runCases plans the selection against target and runs it.
func runCases(t *testing.T, target plan.Target, sel plan.Selection, o execute.Options) []results.Result {
	t.Helper()
	suite := loadSuite(t)
	calls, err := plan.Make(suite.Catalog, target, sel)
	require.NoError(t, err)
	require.NotEmpty(t, calls)
	var rs []results.Result
	runner := suite.Runner(target, o)
	runner.Run(context.Background(), calls, func(r results.Result) { rs = append(rs, r) })
	return rs
}

// The model lists a differs_from check compares are requests of the
// execute stage, paced as the case's own: a list answered 429 once is
// waited on and asked again, and the case passes, not flaky; a list that
// cannot be had is no failure of the gateway's contract.
func TestDiffersFromListsArePaced(t *testing.T) {
	t.Parallel()
	loc := startLocal(t, refgateway.Config{})
	for _, tc := range []struct {
		name   string
		answer func(n int32, w http.ResponseWriter) bool // true: answered instead of the gateway
		status vocab.Status
	}{
		{"429 once, then the list", func(n int32, w http.ResponseWriter) bool {
			if n > 1 {
				return false
			}
			w.Header().Set("Retry-After", "1")
			http.Error(w, `{"error":{"message":"slow down"}}`, http.StatusTooManyRequests)
			return true
		}, vocab.StatusPass},
		{"the list answered 500", func(_ int32, w http.ResponseWriter) bool {
			http.Error(w, `{"error":{"message":"boom"}}`, http.StatusInternalServerError)
			return true
		}, vocab.StatusError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var lists atomic.Int32
			messagesKey := "Bearer " + loc.target.Keys["messages"]
			front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/v1/models" && r.Header.Get("Authorization") == messagesKey && tc.answer(lists.Add(1), w) {
					return
				}
				loc.srv.Gateway.ServeHTTP(w, r)
			}))
			t.Cleanup(front.Close)
			target := loc.target
			target.BaseURL = front.URL
			rs := runCases(t, target, plan.Selection{Cases: []string{"models-lists-differ-text"}}, execute.Options{MaxRetries: -1})
			require.Len(t, rs, 1)
			r := rs[0]
			assert.Equal(t, tc.status, r.Status, "%v", r.Reasons)
			assert.False(t, r.Flaky)
			if tc.status == vocab.StatusPass {
				assert.Equal(t, 1, r.Waits, "waited once on the list's 429")
				assert.GreaterOrEqual(t, r.WaitMS, int64(900))
				assert.Equal(t, 1, r.Refused, "the 429 costs nothing")
			} else {
				require.NotEmpty(t, r.Reasons)
				assert.Equal(t, "differs_from", r.Reasons[0].Check)
				assert.Contains(t, r.Reasons[0].Message, "nothing to compare")
			}
		})
	}
}

// A run against a rate-limited gateway waits as asked and ends with no
// throttled result: every case of the slice passes.
func TestRunWithinARateLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("a paced run takes seconds")
	}
	t.Parallel()
	limit, err := refgateway.ParseRateLimit("10/s,burst=2")
	require.NoError(t, err)
	loc := startLocal(t, refgateway.Config{RateLimit: limit})
	rs := runCases(t, loc.target, plan.Selection{Features: []string{"models.list", "chat.*", "messages.basic"}},
		execute.Options{Concurrency: 8})
	require.NotEmpty(t, rs)
	waited := 0
	for _, r := range rs {
		assert.NotEqual(t, vocab.StatusThrottled, r.Status, "%s %s: %v", r.Case, r.Model, r.Reasons)
		if r.Tier == vocab.TierVerified || r.Tier == vocab.TierNegative {
			assert.Equal(t, vocab.StatusPass, r.Status, "%s %s: %v", r.Case, r.Model, r.Reasons)
		}
		assert.False(t, r.Flaky, "%s %s: waiting is no flakiness", r.Case, r.Model)
		waited += r.Waits
	}
	assert.Positive(t, waited, "a burst of 2 at 8 calls in flight makes the run wait")
}

// A result carries a curl command for a small body that is not multipart:
// the key as its variable, never its value; a multipart body carries none
// (gwconform show --curl writes its files).
func TestResultCurl(t *testing.T) {
	loc := startLocal(t, refgateway.Config{})
	suite := loadSuite(t)
	calls, err := plan.Make(suite.Catalog, loc.target, plan.Selection{Cases: []string{"chat-json", "edit-multipart-one-ref", "edit-json-one-ref"}})
	require.NoError(t, err)
	runner := suite.Runner(loc.target, execute.Options{})
	curls := map[string]string{}
	runner.Run(context.Background(), calls, func(r results.Result) { curls[r.Case] = r.Request.Curl })
	assert.Contains(t, curls["chat-json"], `-H "Authorization: Bearer ${GWCONFORM_TEXT_KEY}"`)
	assert.Contains(t, curls["chat-json"], `"${GWCONFORM_BASE_URL}/v1/chat/completions"`)
	assert.Contains(t, curls["chat-json"], `--data-raw '{`)
	assert.NotContains(t, curls["chat-json"], loc.target.Keys["text"])
	assert.Empty(t, curls["edit-multipart-one-ref"], "multipart: its files are written by gwconform show --curl")
	if c := curls["edit-json-one-ref"]; c != "" { // a small reference image: its data URL inline, whole
		assert.Contains(t, c, `"image_url":"data:image/png;base64,`)
	}
}

// A call holds at most one slot of its key at a time: a case of several
// request shapes gives back the slot of each shape the gateway refused
// before it sends the next. At --concurrency 1 with the first shape
// refused, every such case ends (the slot of the refused shape was kept,
// and the next shape waited on it forever); the guard is a minute.
func TestSeveralShapesEndAtConcurrencyOne(t *testing.T) {
	t.Parallel()
	loc := startLocal(t, refgateway.Config{})
	suite := loadSuite(t)
	var several []string
	for _, cs := range suite.Catalog.Cases {
		if len(cs.Variants) > 1 {
			several = append(several, cs.ID)
		}
	}
	require.NotEmpty(t, several, "the catalog has cases of several shapes")
	for _, id := range several {
		t.Run(id, func(t *testing.T) {
			t.Parallel()
			var first atomic.Bool
			front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/v1/models" && first.CompareAndSwap(false, true) {
					http.Error(w, `{"error":{"message":"this shape is not served"}}`, http.StatusBadRequest)
					return
				}
				loc.srv.Gateway.ServeHTTP(w, r)
			}))
			t.Cleanup(front.Close)
			target := loc.target
			target.BaseURL = front.URL
			calls, err := plan.Make(suite.Catalog, target, plan.Selection{Cases: []string{id}})
			require.NoError(t, err)
			require.NotEmpty(t, calls)
			done := make(chan []results.Result, 1)
			go func() {
				var rs []results.Result
				suite.Runner(target, execute.Options{Concurrency: 1, MaxRetries: -1}).
					Run(context.Background(), calls, func(r results.Result) { rs = append(rs, r) })
				done <- rs
			}()
			select {
			case rs := <-done:
				require.Len(t, rs, len(calls))
				assert.Equal(t, "variant", rs[0].Reasons[0].Check, "the first shape is told declined: %v", rs[0].Reasons)
			case <-time.After(time.Minute):
				t.Fatalf("%s did not end within a minute at concurrency 1 with its first shape refused", id)
			}
		})
	}
}
