package execute

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
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
	return sendBare(ctx, t, kind, http.MethodGet, "/v1/models")
}

// sendBare sends a request with no case behind it, with the headers and
// key of a kind: GET with no body, POST with an empty JSON object.
func sendBare(ctx context.Context, t plan.Target, kind catalog.KeyKind, method, path string) (*http.Response, error) {
	base := t.BaseFor(kind)
	var body io.Reader
	if method == http.MethodPost {
		body = strings.NewReader("{}")
	}
	req, err := http.NewRequestWithContext(ctx, method, base+path, body)
	if err != nil {
		return nil, fmt.Errorf("base URL %q: %w", base, err)
	}
	t.SetHeaders(req.Header, kind, path)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if kind != "" {
		req.Header.Set("Authorization", "Bearer "+t.Keys[kind])
	}
	return clientOf(t).Do(req)
}
