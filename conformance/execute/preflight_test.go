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
	"github.com/gwconform/gwconform/conformance/vocab"
)

// preflightCatalog has one verified case per kind, and a negative text case
// that sends the text key to an image model on purpose: only verified
// cases say which models a key of a kind lists.
var preflightCatalog = &catalog.Catalog{Cases: []catalog.Case{
	{ID: "chat-basic", Tier: vocab.TierVerified, Key: catalog.KeyText, Models: []string{"gen-5.5"}, Request: catalog.Request{Method: "POST", Path: "/v1/chat/completions"}},
	{ID: "chat-image-model", Tier: vocab.TierNegative, Key: catalog.KeyText, Models: []string{"gen-image-2"}},
	{ID: "messages-basic", Tier: vocab.TierVerified, Key: catalog.KeyMessages, Models: []string{"msg-sonnet-5"}, Request: catalog.Request{Method: "POST", Path: "/v1/messages"}},
	{ID: "images-basic", Tier: vocab.TierVerified, Key: catalog.KeyImage, Models: []string{"gen-image-2", "gen-image-2.5-flare"}},
}}

const preflightTextKey = "sk-text-key-0123456789"

// answer serves every request with one status and body.
func answer(status int, contentType, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(status)
		w.Write([]byte(body))
	}
}

func modelList(ids ...string) http.HandlerFunc {
	body := `{"object":"list","data":[`
	for i, id := range ids {
		if i > 0 {
			body += ","
		}
		body += `{"id":"` + id + `","object":"model"}`
	}
	return answer(http.StatusOK, "application/json", body+"]}")
}

// Preflight stops on a setup mistake with one line saying which, and lets
// through what the cases report better.
func TestPreflightSetupMistakes(t *testing.T) {
	tests := []struct {
		name     string
		handler  http.HandlerFunc
		path     string // appended to the server's URL to make the base URL
		keys     map[catalog.KeyKind]string
		wantErr  []string // each in the error; none means no error
		rejected []catalog.KeyKind
	}{
		{name: "a base URL ending in /v1 whose list is not found", handler: answer(http.StatusNotFound, "text/plain", "not found"), path: "/v1",
			wantErr: []string{"the base URL should not end in /v1 (GET ", "/v1/v1/models answered 404): give the address without it"}},
		{name: "a base URL ending in /v1/ whose list is not found", handler: answer(http.StatusNotFound, "text/plain", "not found"), path: "/v1/",
			wantErr: []string{"the base URL should not end in /v1"}},
		{name: "a base URL ending in /v1 with no key", handler: answer(http.StatusNotFound, "text/plain", "not found"), path: "/v1", keys: map[catalog.KeyKind]string{},
			wantErr: []string{"the base URL should not end in /v1"}},
		{name: "a 404 on a base without /v1 is left to models.list", handler: func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost { // the gateway is there: its chat answers
				answer(http.StatusBadRequest, "application/json", `{"error":{"message":"model is required"}}`)(w, r)
				return
			}
			http.NotFound(w, r)
		}},
		// Every key's list and every verified path 404: nothing at the
		// base is this API; the run does not start (no 168 FAIL lines).
		{name: "nothing at the base answers", handler: answer(http.StatusNotFound, "text/plain", "not found"), path: "/wrong",
			keys:    map[catalog.KeyKind]string{catalog.KeyText: preflightTextKey, catalog.KeyMessages: "sk-messages-0123456789"},
			wantErr: []string{"nothing at this address answers as the Model-Gateway API: every key's GET /v1/models and POST /v1/chat/completions, POST /v1/messages answered 404: check the base URL (", "/wrong; the gateway's whole address, a path prefix included)"}},
		{name: "a base URL ending in /v1 that lists is the gateway's", handler: modelList("gen-5.5"), path: "/v1"},
		{name: "the text key listing image models", handler: modelList("gen-image-2.5-flare", "gen-image-2"),
			wantErr: []string{"the text key lists image models (gen-image-2, gen-image-2.5-flare): is it the image key?"}},
		{name: "the text key listing its own and image models", handler: modelList("gen-image-2", "gen-5.5")},
		{name: "the text key listing models the catalog does not know", handler: modelList("acme-large", "acme-small")},
		{name: "the text key listing nothing", handler: modelList()},
		{name: "a relay refusing with a JSON message",
			handler: answer(http.StatusBadRequest, "application/json", `{"error":{"message":"missing X-Relay-Route header (Authorization: Bearer `+preflightTextKey+`)"}}`),
			wantErr: []string{"with the text key answered 400 Bad Request: missing X-Relay-Route header (Authorization: Bearer [REDACTED])"}},
		{name: "a relay refusing with an error string", handler: answer(http.StatusUnprocessableEntity, "application/json", `{"error":"relay: unknown route"}`),
			wantErr: []string{"answered 422 Unprocessable Entity: relay: unknown route"}},
		{name: "a proxy refusing with a text page", handler: answer(http.StatusProxyAuthRequired, "text/html", "<html>\n  <h1>Proxy authentication required</h1>\n</html>\n"),
			wantErr: []string{"answered 407 Proxy Authentication Required: <html> <h1>Proxy authentication required</h1> </html>"}},
		{name: "a throttled list is left to the cases", handler: answer(http.StatusTooManyRequests, "application/json", `{"error":{"message":"slow down"}}`)},
		{name: "a 5xx is left to the cases", handler: answer(http.StatusServiceUnavailable, "application/json", `{"error":{"message":"busy"}}`)},
		{name: "a rejected key", handler: answer(http.StatusUnauthorized, "application/json", `{"error":{"message":"bad key"}}`),
			rejected: []catalog.KeyKind{catalog.KeyText}},
		{name: "a forbidden key", handler: answer(http.StatusForbidden, "application/json", `{"error":{"message":"no"}}`),
			rejected: []catalog.KeyKind{catalog.KeyText}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(tt.handler)
			t.Cleanup(srv.Close)
			keys := tt.keys
			if keys == nil {
				keys = map[catalog.KeyKind]string{catalog.KeyText: preflightTextKey}
			}
			found, err := Preflight(context.Background(), preflightCatalog, plan.Target{BaseURL: srv.URL + tt.path, Keys: keys}, nil, ListOptions{})
			if len(tt.wantErr) == 0 {
				require.NoError(t, err)
				var got []catalog.KeyKind
				for k := range found.Rejected {
					got = append(got, k)
				}
				assert.ElementsMatch(t, tt.rejected, got)
				return
			}
			require.Error(t, err)
			for _, want := range tt.wantErr {
				assert.Contains(t, err.Error(), want)
			}
			assert.NotContains(t, err.Error(), preflightTextKey)
			assert.NotContains(t, err.Error(), "\n", "one line")
		})
	}
}

// stalledList answers a model list's headers and the start of its body,
// then sends nothing more until the client gives up.
func stalledList(t *testing.T) *httptest.Server {
	t.Helper()
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		w.Write([]byte(`{"object":"list","data":[`))
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	t.Cleanup(func() {
		close(stop)
		srv.Close()
	})
	return srv
}

// The coverage listing after the cases runs with no case timeout: a list
// that stalls after its headers ends it with an error, not a hang.
func TestFindNewModelsBoundsAStalledList(t *testing.T) {
	srv := stalledList(t)
	done := make(chan error, 1)
	go func() {
		_, err := FindNewModels(context.Background(), preflightCatalog,
			plan.Target{BaseURL: srv.URL, Keys: map[catalog.KeyKind]string{catalog.KeyText: preflightTextKey}}, ListOptions{Timeout: 2 * time.Second})
		done <- err
	}()
	select {
	case err := <-done:
		require.Error(t, err)
		assert.Contains(t, err.Error(), "no answer to GET /v1/models within 2s (--timeout)")
	case <-time.After(60 * time.Second): // hang guard: the bound is 2 s
		t.Fatal("FindNewModels did not return: the stalled list was not bounded")
	}
}

// A model list is a request like any other: bounded by the request
// timeout, not by a bound of its own. One that does not answer within it
// leaves its key's models unread (their cases unchecked) and the other
// keys' lists resolved; one slower than a few seconds is said, naming its
// key, and waited for.
func TestPreflightListsAreBoundedByTheRequestTimeout(t *testing.T) {
	stalled := stalledList(t)
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "Bearer "+preflightTextKey {
			time.Sleep(slowList + time.Second)
		}
		modelList("gen-5.5", "msg-sonnet-5")(w, r)
	}))
	t.Cleanup(slow.Close)
	keys := map[catalog.KeyKind]string{catalog.KeyText: preflightTextKey, catalog.KeyMessages: "sk-messages"}

	found, err := Preflight(context.Background(), preflightCatalog, plan.Target{BaseURL: stalled.URL, Keys: keys}, nil, ListOptions{Timeout: 2 * time.Second})
	require.NoError(t, err, "a list that never answers stops nothing")
	for _, e := range found.Names.Records() {
		assert.Equal(t, plan.NameUnread, e.Source, "%+v", e)
		assert.Equal(t, "no answer within 2s (--timeout)", e.Why)
	}

	var said []catalog.KeyKind
	found, err = Preflight(context.Background(), preflightCatalog, plan.Target{BaseURL: slow.URL, Keys: keys}, nil,
		ListOptions{Slow: func(kind catalog.KeyKind, limit time.Duration) {
			said = append(said, kind)
			assert.Equal(t, SpecMaxDuration, limit, "the request timeout's default, the spec's 600 s")
		}})
	require.NoError(t, err)
	assert.Equal(t, []catalog.KeyKind{catalog.KeyText}, said, "the slow list is said, by its key")
	assert.Equal(t, "gen-5.5", found.Names.Gateway(catalog.KeyText, "gen-5.5"))
	assert.Equal(t, plan.NameListed, found.Names.Entries["gen-5.5"].Source, "a slow list is waited for")
}

// TestPreflightPerKindBaseAndOffer: each kind's list is asked at its own
// base, and none of a gateway whose declared offer takes no models.*
// feature.
func TestPreflightPerKindBaseAndOffer(t *testing.T) {
	cat := &catalog.Catalog{Cases: []catalog.Case{
		{ID: "models-list", Feature: "models.list", Tier: vocab.TierVerified, Key: catalog.KeyText, Models: []string{"gen-5.5"}},
		{ID: "chat-basic", Feature: "chat.basic", Tier: vocab.TierVerified, Key: catalog.KeyText, Models: []string{"gen-5.5"}},
		{ID: "messages-basic", Feature: "messages.basic", Tier: vocab.TierVerified, Key: catalog.KeyMessages, Models: []string{"msg-sonnet-5"}},
	}}
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked = append(asked, r.URL.Path)
		modelList("gen-5.5", "msg-sonnet-5")(w, r)
	}))
	t.Cleanup(srv.Close)
	keys := map[catalog.KeyKind]string{catalog.KeyText: preflightTextKey, catalog.KeyMessages: "sk-messages-key-0123456789"}
	tests := []struct {
		name   string
		target plan.Target
		sel    plan.Selection
		want   []string
	}{
		{"one base", plan.Target{BaseURL: srv.URL, Keys: keys}, plan.Selection{}, []string{"/v1/models", "/v1/models"}},
		{"a kind's own base", plan.Target{BaseURL: srv.URL + "/openai", Keys: keys,
			KindBaseURLs: map[catalog.KeyKind]string{catalog.KeyMessages: srv.URL + "/anthropic"}}, plan.Selection{}, []string{"/openai/v1/models", "/anthropic/v1/models"}},
		// A key no selected case uses is asked nothing: messages are not
		// offered, or not selected.
		{"messages not offered", plan.Target{BaseURL: srv.URL, Keys: keys, Offers: []string{"models.*", "chat.*"}}, plan.Selection{}, []string{"/v1/models"}},
		{"messages not selected", plan.Target{BaseURL: srv.URL, Keys: keys}, plan.Selection{Features: []string{"chat.*"}}, []string{"/v1/models"}},
		{"models not offered", plan.Target{BaseURL: srv.URL, Keys: keys, Offers: []string{"chat.*", "messages.*"}}, plan.Selection{}, nil},
		{"models excluded", plan.Target{BaseURL: srv.URL, Keys: keys, Offers: []string{"!models.*"}}, plan.Selection{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			asked = nil
			found, err := Preflight(context.Background(), cat, tt.target, plan.UsedKinds(cat, tt.target, tt.sel), ListOptions{})
			require.NoError(t, err)
			assert.Empty(t, found.Rejected)
			assert.Equal(t, tt.want, asked)
		})
	}
}
