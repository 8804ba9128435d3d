package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance"
	"github.com/gwconform/gwconform/conformance/conformancetest"
	"github.com/gwconform/gwconform/conformance/refgateway"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
	"github.com/gwconform/gwconform/fixtures"
)

// router serves a gateway the way hosted gateways route their families:
// each prefix serves the endpoints it lists (and the model list), the
// prefix taken off before the request reaches the gateway; anything else
// is answered 404 "Route not found", as such gateways answer a route they
// do not have. served counts the requests each prefix passed on.
type router struct {
	srv    *httptest.Server
	mu     sync.Mutex
	served map[string]int // "prefix path" → requests passed on
	missed []string       // requests answered "Route not found"
}

func newRouter(t *testing.T, upstream string, routes map[string][]string) *router {
	t.Helper()
	u, err := url.Parse(upstream)
	require.NoError(t, err)
	proxy := httputil.NewSingleHostReverseProxy(u)
	rt := &router{served: map[string]int{}}
	rt.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for prefix, endpoints := range routes {
			rest, ok := strings.CutPrefix(r.URL.Path, prefix)
			if !ok || !(rest == "/v1/models" || servesPath(endpoints, rest)) {
				continue
			}
			rt.mu.Lock()
			rt.served[prefix+" "+rest]++
			rt.mu.Unlock()
			r.URL.Path = rest
			proxy.ServeHTTP(w, r)
			return
		}
		rt.mu.Lock()
		rt.missed = append(rt.missed, r.Method+" "+r.URL.Path)
		rt.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"error":{"message":"Route not found"}}`))
	}))
	t.Cleanup(rt.srv.Close)
	return rt
}

// prefixRouted starts the reference gateway behind a router that serves
// chat, responses and images under /openai and messages under /anthropic,
// as hosted gateways route the two interfaces.
func prefixRouted(t *testing.T) (*conformancetest.Server, *router) {
	t.Helper()
	gw, err := conformancetest.Start(refgateway.Config{}, fixtures.FS)
	require.NoError(t, err)
	t.Cleanup(gw.Close)
	return gw, newRouter(t, gw.BaseURL, map[string][]string{
		"/openai":    {"/v1/chat/", "/v1/responses", "/v1/images/"},
		"/anthropic": {"/v1/messages"},
	})
}

func servesPath(endpoints []string, path string) bool {
	for _, e := range endpoints {
		if strings.HasPrefix(path, e) {
			return true
		}
	}
	return false
}

// TestRunAgainstAGatewayRoutedByPrefix: a gateway serving chat, responses
// and images under /openai and messages under /anthropic is tested in one
// run with per-kind bases, every verified and negative result passing,
// each request reaching its family's prefix.
func TestRunAgainstAGatewayRoutedByPrefix(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the verified and negative catalog (make test runs it in its non-race pass)")
	}
	clearEnv(t)
	gw, rt := prefixRouted(t)
	keys := []string{"--text-key", gw.Keys.Text, "--messages-key", gw.Keys.Messages, "--image-key", gw.Keys.Image, "--alt-key", gw.Keys.Alt,
		"--public-image-url", gw.PublicImageURL}
	bases := []string{"--base-url", rt.srv.URL + "/openai", "--messages-base-url", rt.srv.URL + "/anthropic", "--alt-base-url", rt.srv.URL + "/anthropic/"}

	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := gw2(t, "run", out, keys, bases, []string{"--tier", "verified,negative", "--retries", "0"})
	require.Equal(t, exitOK, code, "stdout:\n%s\nstderr:\n%s", tail(stdout), stderr)
	assert.Contains(t, stdout, "conformance passed")

	rs, err := results.ReadFile(filepath.Join(out, results.FileName))
	require.NoError(t, err)
	require.NotEmpty(t, rs)
	for _, r := range rs {
		assert.Equal(t, vocab.StatusPass, r.Status, "%s × %s: %v", r.Case, r.Model, r.Reasons)
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	assert.Empty(t, rt.missed, "every request reached a route")
	assert.Positive(t, rt.served["/anthropic /v1/messages"], "messages went to /anthropic")
	assert.Positive(t, rt.served["/openai /v1/chat/completions"], "chat went to /openai")
	assert.Positive(t, rt.served["/openai /v1/images/edits"], "image edits went to /openai")
	assert.Positive(t, rt.served["/anthropic /v1/models"], "the messages key's list was asked at its base")

	m, err := conformance.ReadManifest(out)
	require.NoError(t, err)
	assert.Equal(t, rt.srv.URL+"/openai", m.BaseURL)
	assert.Equal(t, map[string]string{"messages": rt.srv.URL + "/anthropic", "alt": rt.srv.URL + "/anthropic"}, m.KindBaseURLs,
		"the manifest records each kind's base, a trailing slash taken off")

	b, err := os.ReadFile(filepath.Join(out, "report.json"))
	require.NoError(t, err)
	var rep struct {
		Metadata struct {
			BaseURLs map[string]string `json:"kindBaseURLs"`
		} `json:"metadata"`
	}
	require.NoError(t, json.Unmarshal(b, &rep))
	assert.Equal(t, m.KindBaseURLs, rep.Metadata.BaseURLs, "report.json says the run used several bases")
}

// TestKindBaseNeedsBaseURL: a kind's own base without --base-url is
// refused at start: the in-process gateway serves no prefixes.
func TestKindBaseNeedsBaseURL(t *testing.T) {
	clearEnv(t)
	code, _, stderr := gw2(t, "run", filepath.Join(t.TempDir(), "out"), []string{"--messages-base-url", "http://127.0.0.1:1/anthropic"})
	assert.Equal(t, exitNotStart, code)
	assert.Contains(t, stderr, "--messages-base-url (from --messages-base-url) needs --base-url too")
}

// TestRunAgainstAGatewayWithoutImages: a gateway that serves no image
// endpoint (every image request 404 "Route not found") fails the image
// features, and the verdict suggests the offer line; declared with
// --offers, the image features are not offered (nothing sent), the run
// exits 0, and matrix.md and report.html say "not offered". probe suggests
// the same line for a gateway listing a model whose family it does not serve.
func TestRunAgainstAGatewayWithoutImages(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the catalog twice (make test runs it in its non-race pass)")
	}
	clearEnv(t)
	ref, err := conformancetest.Start(refgateway.Config{ExtraModels: []refgateway.ExtraModel{{Kind: "image", ID: "gen-image-3-nova"}}}, fixtures.FS)
	require.NoError(t, err)
	t.Cleanup(ref.Close)
	rt := newRouter(t, ref.BaseURL, map[string][]string{"": {"/v1/chat/", "/v1/responses", "/v1/messages"}})
	target := []string{"--base-url", rt.srv.URL, "--public-image-url", ref.PublicImageURL,
		"--text-key", ref.Keys.Text, "--messages-key", ref.Keys.Messages, "--image-key", ref.Keys.Image, "--alt-key", ref.Keys.Alt, "--retries", "0"}
	const offers = "models.*,chat.*,messages.*,responses.*"

	t.Run("undeclared, the image features fail and the offer line is suggested", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "out")
		code, stdout, stderr := gw2(t, "run", out, target, []string{"--feature", "images.generate,images.edit.json,chat.basic", "--tier", "verified"})
		assert.Equal(t, exitFailed, code, stderr)
		assert.Contains(t, stdout, "every verified request of images.* answered 404")
		assert.Contains(t, stdout, "--offers '!images.*'")
	})

	t.Run("declared, the image features are not offered and the run passes", func(t *testing.T) {
		rt.mu.Lock()
		rt.missed = nil
		rt.mu.Unlock()
		out := filepath.Join(t.TempDir(), "out")
		code, stdout, stderr := gw2(t, "run", out, target, []string{"--offers", offers})
		require.Equal(t, exitOK, code, "stdout:\n%s\nstderr:\n%s", tail(stdout), stderr)
		assert.Contains(t, stdout, "conformance passed")
		assert.Contains(t, stdout, "not offered: images.*")
		rt.mu.Lock()
		assert.Empty(t, rt.missed, "no image request was sent")
		rt.mu.Unlock()

		rs, err := results.ReadFile(filepath.Join(out, results.FileName))
		require.NoError(t, err)
		for _, r := range rs {
			if strings.HasPrefix(r.Feature, "images.") {
				assert.True(t, r.NotOffered(), "%s × %s: %s", r.Case, r.Model, r.Status)
			}
		}
		md, err := os.ReadFile(filepath.Join(out, "matrix.md"))
		require.NoError(t, err)
		assert.Contains(t, string(md), "| `images.generate` | 🚫 not offered |")
		assert.Contains(t, string(md), "offers `"+offers+"`")
		html, err := os.ReadFile(filepath.Join(out, "report.html"))
		require.NoError(t, err)
		assert.Contains(t, string(html), `"status":"not-offered"`)
		assert.Contains(t, string(html), `"label":"not offered"`)

		m, err := conformance.ReadManifest(out)
		require.NoError(t, err)
		assert.Equal(t, strings.Split(offers, ","), m.Offers)
	})

	t.Run("probe suggests the offer line", func(t *testing.T) {
		code, stdout, stderr := gw(t, append([]string{"probe", "--tier", "verified", "--out", t.TempDir()}, target...)...)
		require.Equal(t, exitOK, code, stderr)
		assert.Contains(t, stdout, "new model gen-image-3-nova (image key)")
		assert.Contains(t, stdout, "declare what the gateway offers\n--offers '!images.*'")
	})
}

// TestMergeJoinsRunsOfOneGateway: a gateway routed under prefixes tested
// a prefix at a time, each run with the keys of its kinds, merges into one
// report: each run's skips yield to the other's results, the whole names
// each kind's base, and runs of another gateway are refused.
func TestMergeJoinsRunsOfOneGateway(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the verified and negative catalog twice")
	}
	clearEnv(t)
	ref, rt := prefixRouted(t)
	dir := t.TempDir()
	tiers := []string{"--tier", "verified,negative", "--retries", "0"}
	openai, anthropic := filepath.Join(dir, "openai"), filepath.Join(dir, "anthropic")
	code, stdout, stderr := gw2(t, "run", openai, tiers, []string{"--base-url", rt.srv.URL + "/openai", "--offers", "!messages.*",
		"--text-key", ref.Keys.Text, "--image-key", ref.Keys.Image, "--public-image-url", ref.PublicImageURL})
	require.NotEqual(t, exitNotStart, code, "%s\n%s", tail(stdout), stderr)
	code, stdout, stderr = gw2(t, "run", anthropic, tiers, []string{"--base-url", rt.srv.URL + "/anthropic", "--offers", "messages.*,models.*",
		"--messages-key", ref.Keys.Messages, "--alt-key", ref.Keys.Alt})
	require.NotEqual(t, exitNotStart, code, "%s\n%s", tail(stdout), stderr)

	merged := filepath.Join(dir, "merged")
	code, stdout, stderr = gw(t, "merge", merged, openai, anthropic)
	require.NotEqual(t, exitNotStart, code, "%s\n%s", stdout, stderr)
	rs, err := results.ReadFile(filepath.Join(merged, results.FileName))
	require.NoError(t, err)
	ran := map[string]int{}
	for _, r := range rs {
		if r.Status != vocab.StatusSkip {
			ran[r.Key]++
			assert.Equal(t, vocab.StatusPass, r.Status, "%s × %s: %v", r.Case, r.Model, r.Reasons)
		}
	}
	for _, k := range []string{"text", "messages", "image", "alt"} {
		assert.Positive(t, ran[k], "the %s key's cases ran in one of the runs", k)
	}
	b, err := os.ReadFile(filepath.Join(merged, "report.json"))
	require.NoError(t, err)
	var rep struct {
		Metadata struct {
			BaseURL  string            `json:"baseURL"`
			BaseURLs map[string]string `json:"kindBaseURLs"`
		} `json:"metadata"`
	}
	require.NoError(t, json.Unmarshal(b, &rep))
	assert.Equal(t, rt.srv.URL+"/openai", rep.Metadata.BaseURL)
	assert.Equal(t, map[string]string{"messages": rt.srv.URL + "/anthropic", "alt": rt.srv.URL + "/anthropic"}, rep.Metadata.BaseURLs)
	md, err := os.ReadFile(filepath.Join(merged, "matrix.md"))
	require.NoError(t, err)
	assert.Contains(t, string(md), "several base URLs")

	local := filepath.Join(dir, "local")
	code, _, stderr = gw2(t, "run", local, []string{"--feature", "chat.basic", "--tier", "verified"})
	require.Equal(t, exitOK, code, stderr)
	code, _, stderr = gw(t, "merge", filepath.Join(dir, "refused"), openai, local)
	assert.Equal(t, exitNotStart, code)
	assert.Contains(t, stderr, "runs merged test one gateway")
}
