package execute

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/plan"
)

// TestSendRetries: a 5xx is asked again, and the reason names the attempts
// before the last; a 5xx whose Retry-After outlasts the run's deadline is
// the answer, and no retry is claimed for it.
func TestSendRetries(t *testing.T) {
	tests := []struct {
		name        string
		retryAfter  string
		answers     []int
		wantStatus  int
		wantTries   int
		wantRetried []string
	}{
		{"503 then 200", "0", []int{503, 200}, 200, 2, []string{"HTTP 503"}},
		{"503 twice then 200", "0", []int{503, 503, 200}, 200, 3, []string{"HTTP 503", "HTTP 503"}},
		{"a wait past the deadline: the 503 is the answer", "3600", []int{503, 200}, 503, 1, nil},
		// What the official clients retry unseen: 408, 409, every 5xx.
		{"500 then 200", "0", []int{500, 200}, 200, 2, []string{"HTTP 500"}},
		{"529 overloaded then 200", "0", []int{529, 200}, 200, 2, []string{"HTTP 529"}},
		{"408 then 200", "0", []int{408, 200}, 200, 2, []string{"HTTP 408"}},
		{"409 then 200", "0", []int{409, 200}, 200, 2, []string{"HTTP 409"}},
		{"500 then 400: the answer after the retries", "0", []int{500, 400}, 400, 2, []string{"HTTP 500"}},
		{"500 every time: the last is the answer", "0", []int{500}, 500, 3, []string{"HTTP 500", "HTTP 500"}},
		// What they do not retry: a refusal is the answer at once.
		{"400", "0", []int{400, 200}, 400, 1, nil},
		{"404", "0", []int{404, 200}, 404, 1, nil},
		{"401", "0", []int{401, 200}, 401, 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Retry-After", tt.retryAfter)
				w.WriteHeader(tt.answers[min(n, len(tt.answers)-1)])
				n++
			}))
			t.Cleanup(srv.Close)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			o := Options{MaxRetries: 2, MaxRetryWait: time.Hour}.WithDefaults()
			ex, err := send(ctx, srv.Client(), o, nil, plan.Target{BaseURL: srv.URL}, &catalog.Case{Key: catalog.KeyText},
				&catalog.Rendered{Method: http.MethodGet, Path: "/v1/models"})
			require.NoError(t, err)
			defer ex.finish()
			defer ex.resp.Body.Close()
			assert.Equal(t, tt.wantStatus, ex.resp.StatusCode)
			assert.Equal(t, tt.wantTries, ex.attempts)
			assert.Equal(t, tt.wantRetried, ex.retried)
			_, claimed := ex.retriesReason()
			assert.Equal(t, len(tt.wantRetried) > 0, claimed)
		})
	}
}
