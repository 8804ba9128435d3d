package conformance_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance"
	"github.com/gwconform/gwconform/conformance/execute"
	"github.com/gwconform/gwconform/conformance/plan"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
)

// exploreCase is one explore case on an endpoint the spec does not show.
const exploreCase = `
cases:
  - id: x-responses
    feature: responses.basic
    tier: explore
    spec: 4.6/responses
    requirement: "A Responses text interface exists."
    why: discovers
    key: text
    models: [gen-5.5]
    request:
      method: POST
      path: /v1/responses
      json: {model: "{{ .Model }}", input: hi}
    expect:
      status: 200
      json: {object: response}
`

// Explore declines are refusals (4xx): unsupported. A 5xx is no refusal
// but a broken answer: fail, which explore reports and never counts.
func TestExploreVerdicts(t *testing.T) {
	suite, err := conformance.LoadSuiteFS(fstest.MapFS{"x.yaml": {Data: []byte(exploreCase)}})
	require.NoError(t, err)
	tests := []struct {
		status int
		body   string
		want   vocab.Status
	}{
		{http.StatusOK, `{"object":"response"}`, vocab.StatusPass},
		{http.StatusOK, `{"object":"other"}`, vocab.StatusFail},
		{http.StatusBadRequest, `{"error":{"message":"unknown parameter"}}`, vocab.StatusUnsupported},
		{http.StatusNotFound, `{"error":{"message":"no route"}}`, vocab.StatusUnsupported},
		{http.StatusTooManyRequests, `{"error":{"message":"slow down"}}`, vocab.StatusThrottled},
		{http.StatusInternalServerError, `{"error":{"message":"upstream crashed"}}`, vocab.StatusFail},
		{http.StatusBadGateway, `bad gateway`, vocab.StatusFail},
		{http.StatusServiceUnavailable, `{"error":{"message":"overloaded"}}`, vocab.StatusFail},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.status, " ", tt.body), func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tt.status)
				fmt.Fprint(w, tt.body)
			}))
			t.Cleanup(srv.Close)
			target := hostileTarget(srv.URL)
			calls, err := plan.Make(suite.Catalog, target, plan.Selection{})
			require.NoError(t, err)
			// A 429 is waited on (1 s, then 2 s) until the wait would pass
			// --max-wait: then it is the answer.
			runner := suite.Runner(target, execute.Options{MaxRetries: -1, MaxWait: time.Second})
			var rs []results.Result
			runner.Run(context.Background(), calls, func(r results.Result) { rs = append(rs, r) })
			require.Len(t, rs, 1)
			assert.Equal(t, tt.want, rs[0].Status, "%v", rs[0].Reasons)
			assert.False(t, rs[0].FailsRun(true), "explore never decides the exit code")
		})
	}
}
