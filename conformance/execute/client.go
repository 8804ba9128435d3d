package execute

import (
	"context"
	"fmt"
	"net/http"
	"sync"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/plan"
)

// clientOf returns the target's client, or the default one: the run's
// transport (header cap, proxies) trusting the system's roots.
func clientOf(t plan.Target) *http.Client {
	if t.Client != nil {
		return t.Client
	}
	return defaultClient()
}

// defaultClient is built once: a client per call would keep no connection.
var defaultClient = sync.OnceValue(func() *http.Client {
	c, err := NewClient(TLSOptions{})
	if err != nil { // only a CA file can fail, and there is none
		panic(err)
	}
	return c
})

// getModels sends GET /v1/models with the headers and the key of a kind
// ("" for no key): the preflight and probe's lists. (A differs_from
// check's lists are requests of its call: send.)
func getModels(ctx context.Context, t plan.Target, kind catalog.KeyKind) (*http.Response, error) {
	base := t.BaseFor(kind)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/v1/models", nil)
	if err != nil {
		return nil, fmt.Errorf("base URL %q: %w", base, err)
	}
	t.SetHeaders(req.Header, kind, "/v1/models")
	if kind != "" {
		req.Header.Set("Authorization", "Bearer "+t.Keys[kind])
	}
	return clientOf(t).Do(req)
}
