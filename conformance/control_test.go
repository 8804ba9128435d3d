package conformance_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance"
	"github.com/gwconform/gwconform/conformance/execute"
	"github.com/gwconform/gwconform/conformance/plan"
	"github.com/gwconform/gwconform/conformance/refgateway"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
)

// controlProxy stands before the reference gateway and lets a test decide
// how the control of chat-no-model (chat-json: the chat request that names
// its model) is answered. negative is closed once the negative's answer is
// written.
type controlProxy struct {
	next     http.Handler
	control  func(w http.ResponseWriter, r *http.Request, next http.Handler, negative <-chan struct{})
	negative chan struct{}
	once     sync.Once
	controls atomic.Int32 // control requests seen
}

func (p *controlProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	if r.URL.Path == "/v1/chat/completions" && strings.Contains(string(body), `"model"`) && strings.Contains(string(body), `"messages"`) {
		p.controls.Add(1)
		p.control(w, r, p.next, p.negative)
		return
	}
	p.next.ServeHTTP(w, r)
	if r.URL.Path == "/v1/chat/completions" {
		p.once.Do(func() { close(p.negative) })
	}
}

// Run holds a negative's result until its control's is known, and decides
// it with that result (results.Settle): from this run, or from the results
// a resumed run already has (Runner.Settled).
func TestRunSettlesNegativesByTheirControls(t *testing.T) {
	suite := loadSuite(t)
	loc := startLocal(t, refgateway.Config{})
	upstream, err := url.Parse(loc.target.BaseURL)
	require.NoError(t, err)
	forward := func(w http.ResponseWriter, r *http.Request, next http.Handler, _ <-chan struct{}) {
		next.ServeHTTP(w, r)
	}
	afterNegative := func(w http.ResponseWriter, r *http.Request, next http.Handler, negative <-chan struct{}) {
		<-negative // the negative's answer is in before its control's
		next.ServeHTTP(w, r)
	}
	notFound := func(w http.ResponseWriter, _ *http.Request, _ http.Handler, _ <-chan struct{}) {
		http.Error(w, `{"error":{"message":"Route not found"}}`, http.StatusNotFound)
	}
	plain := func(st vocab.Status, code int) []results.Result {
		return []results.Result{{Case: "chat-json", Model: "gen-5.5", Tier: vocab.TierVerified, Status: st, HTTPStatus: code}}
	}
	tests := []struct {
		name     string
		control  func(http.ResponseWriter, *http.Request, http.Handler, <-chan struct{})
		alone    bool             // the negative's call alone, not the plan's pair
		settled  []results.Result // Runner.Settled
		want     vocab.Status
		controls int32 // control requests made
		actual   string
	}{
		{name: "a control served after the negative: the refusal stands, reported after it", control: afterNegative, want: vocab.StatusPass, controls: 1},
		{name: "a control refused too: inconclusive", control: notFound, want: vocab.StatusInconclusive, controls: 1, actual: "fail (HTTP 404): status: HTTP status 404"},
		{name: "a control passed before the run resumed", control: forward, alone: true, settled: plain(vocab.StatusPass, 200), want: vocab.StatusPass},
		{name: "a control failed before the run resumed", control: forward, alone: true, settled: plain(vocab.StatusFail, 400), want: vocab.StatusInconclusive, actual: "fail"},
		{name: "no control in the run", control: forward, alone: true, want: vocab.StatusInconclusive, actual: "not in this run"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &controlProxy{next: httputil.NewSingleHostReverseProxy(upstream), control: tt.control, negative: make(chan struct{})}
			srv := httptest.NewServer(p)
			t.Cleanup(srv.Close)
			target := loc.target
			target.BaseURL = srv.URL
			calls, err := plan.Make(suite.Catalog, target, plan.Selection{Cases: []string{"chat-no-model"}})
			require.NoError(t, err)
			require.Len(t, calls, 2)
			if tt.alone {
				calls = calls[1:]
			}
			runner := suite.Runner(target, execute.Options{MaxRetries: -1})
			runner.Settled = tt.settled
			var order []string
			var neg results.Result
			runner.Run(context.Background(), calls, func(r results.Result) {
				order = append(order, r.Case)
				if r.Case == "chat-no-model" {
					neg = r
				}
			})
			assert.Equal(t, tt.want, neg.Status, "%v", neg.Reasons)
			assert.Equal(t, tt.controls, p.controls.Load())
			if !tt.alone {
				assert.Equal(t, []string{"chat-json", "chat-no-model"}, order, "a negative's line comes after its control's")
			}
			if tt.actual == "" {
				assert.Empty(t, neg.Reasons)
				return
			}
			require.NotEmpty(t, neg.Reasons)
			assert.Equal(t, vocab.CheckControl, neg.Reasons[0].Check)
			assert.Equal(t, "chat-json (gen-5.5)", neg.Reasons[0].Where)
			assert.Contains(t, neg.Reasons[0].Actual, tt.actual)
		})
	}
}

// go test makes each call once: a control a negative needs is made by the
// first subtest that needs it, and every result is returned once.
func TestGoTestRunMakesControlsOnce(t *testing.T) {
	loc := startLocal(t, refgateway.Config{})
	suite := loadSuite(t)
	cfg := conformance.Config{Target: loc.target, Suite: suite, Local: true, Options: execute.Options{MaxRetries: -1},
		Selection: plan.Selection{Cases: []string{"chat-no-model", "chat-no-messages"}}}
	rs := conformance.Run(t, cfg)
	got := map[string]vocab.Status{}
	for _, r := range rs {
		_, dup := got[r.Case]
		assert.False(t, dup, "%s reported twice", r.Case)
		got[r.Case] = r.Status
	}
	assert.Equal(t, map[string]vocab.Status{"chat-json": vocab.StatusPass, "chat-no-model": vocab.StatusPass, "chat-no-messages": vocab.StatusPass}, got)
	// One model list per key the selection uses (the preflight: the text
	// key's), and one request per call.
	assert.Equal(t, int64(1+3), loc.srv.Gateway.Requests())
}
