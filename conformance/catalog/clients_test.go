package catalog

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	aoption "github.com/anthropics/anthropic-sdk-go/option"
	"github.com/openai/openai-go/v3"
	ooption "github.com/openai/openai-go/v3/option"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/cases"
	"github.com/gwconform/gwconform/conformance/vocab"
	"github.com/gwconform/gwconform/fixtures"
)

// headers builds a request's headers from name, value pairs, with the
// canonical names net/http gives a server.
func headers(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Add(kv[i], kv[i+1])
	}
	return h
}

// The headers each library sends, as its source builds them and as a drive
// against a local server printed them (clients.yaml names the versions).
// Credentials are left out: a recording never holds them.
var (
	stainlessNode = []string{"Accept", "application/json", "X-Stainless-Retry-Count", "0", "X-Stainless-Lang", "js",
		"X-Stainless-OS", "Linux", "X-Stainless-Arch", "x64", "X-Stainless-Runtime", "node", "X-Stainless-Runtime-Version", "v20.20.2",
		"Accept-Language", "*", "Sec-Fetch-Mode", "cors"}
	stainlessGo     = []string{"Accept", "application/json", "X-Stainless-Lang", "go", "X-Stainless-OS", "Linux", "X-Stainless-Arch", "x64", "X-Stainless-Runtime", "go", "X-Stainless-Runtime-Version", "go1.26.8", "X-Stainless-Retry-Count", "0"}
	stainlessPython = []string{"Accept", "application/json", "X-Stainless-Lang", "python", "X-Stainless-OS", "Linux", "X-Stainless-Arch", "x64", "X-Stainless-Runtime", "CPython", "X-Stainless-Runtime-Version", "3.12.3", "X-Stainless-Retry-Count", "0"}
	nodeFetch       = []string{"Accept", "*/*", "Accept-Language", "*", "Sec-Fetch-Mode", "cors"}
)

func with(base []string, kv ...string) http.Header {
	return headers(append(append([]string(nil), base...), kv...)...)
}

func TestIdentifyKnownClients(t *testing.T) {
	cs, err := EmbeddedClients()
	require.NoError(t, err)
	tests := []struct {
		name   string
		h      http.Header
		row    string
		guessd bool
	}{
		{"openai-node", with(stainlessNode, "User-Agent", "OpenAI/JS 6.49.0", "X-Stainless-Package-Version", "6.49.0"), "openai-node 6.49.0", false},
		{"openai-node, the Azure client", with(stainlessNode, "User-Agent", "AzureOpenAI/JS 6.49.0", "X-Stainless-Package-Version", "6.49.0"), "openai-node 6.49.0", false},
		{"openai-node in a browser, which sends no User-Agent of its own", headers("User-Agent", "Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0.0.0", "Accept", "application/json", "X-Stainless-Lang", "js",
			"X-Stainless-Package-Version", "7.5.0", "X-Stainless-Runtime", "browser:chrome", "X-Stainless-Runtime-Version", "120.0.0", "X-Stainless-OS", "Linux", "X-Stainless-Arch", "unknown"), "openai-node 7.5.0", true},
		{"openai-go", with(stainlessGo, "User-Agent", "OpenAI/Go 3.96.0", "X-Stainless-Package-Version", "3.96.0"), "openai-go 3.96.0", false},
		{"openai-python", with(stainlessPython, "User-Agent", "OpenAI/Python 3.3.1", "X-Stainless-Package-Version", "3.3.1", "X-Stainless-Async", "false"), "openai-python 3.3.1", false},
		{"openai-python, async", with(stainlessPython, "User-Agent", "AsyncOpenAI/Python 3.3.1", "X-Stainless-Package-Version", "3.3.1", "X-Stainless-Async", "async:asyncio"), "openai-python 3.3.1", false},
		{"@anthropic-ai/sdk 1.x", with(stainlessNode, "User-Agent", "Anthropic/JS 1.14.0", "X-Stainless-Package-Version", "1.14.0", "X-Stainless-Timeout", "600", "Anthropic-Version", "2026-10-21"), "anthropic-sdk-typescript 1.14.0", false},
		{"@anthropic-ai/sdk 0.x", with(stainlessNode, "User-Agent", "Anthropic/JS 0.122.0", "X-Stainless-Package-Version", "0.122.0", "Anthropic-Version", "2023-06-01"), "anthropic-sdk-typescript 0.122.0", false},
		{"@anthropic-ai/sdk in a browser that keeps its own User-Agent", headers("User-Agent", "Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0.0.0", "X-Stainless-Lang", "js", "X-Stainless-Package-Version", "0.120.0",
			"X-Stainless-Runtime", "browser:chrome", "X-Stainless-Runtime-Version", "120.0.0", "Anthropic-Version", "2023-06-01", "Anthropic-Dangerous-Direct-Browser-Access", "true"), "anthropic-sdk-typescript 0.120.0", false},
		{"anthropic-sdk-go", with(stainlessGo, "User-Agent", "Anthropic/Go 1.84.0", "X-Stainless-Package-Version", "1.84.0", "Anthropic-Version", "2023-06-01", "X-Stainless-Timeout", "600"), "anthropic-sdk-go 1.84.0", false},
		{"anthropic-sdk-python", with(stainlessPython, "User-Agent", "Anthropic/Python 0.121.0", "X-Stainless-Package-Version", "0.121.0", "Anthropic-Version", "2023-06-01", "X-Stainless-Async", "false"), "anthropic-sdk-python 0.121.0", false},
		{"anthropic-sdk-python, async", with(stainlessPython, "User-Agent", "AsyncAnthropic/Python 0.121.0", "X-Stainless-Package-Version", "0.121.0", "Anthropic-Version", "2023-06-01"), "anthropic-sdk-python 0.121.0", false},
		{"Vercel AI SDK, generateText with the OpenAI provider", with(nodeFetch, "User-Agent", "ai/6.0.326 ai-sdk/provider-utils/4.0.66 runtime/node.js/v20.20.2"), "vercel-ai-sdk 6", false},
		{"Vercel AI SDK, streamText with the Anthropic provider", with(nodeFetch, "User-Agent", "ai-sdk/anthropic/3.0.140 ai-sdk/provider-utils/4.0.65 runtime/node.js/v20.20.2", "Anthropic-Version", "2023-06-01"), "vercel-ai-sdk 6", false},
		{"Vercel AI SDK 5", with(nodeFetch, "User-Agent", "ai/5.0.43 ai-sdk/provider-utils/3.0.9 runtime/node.js/22"), "vercel-ai-sdk 5", false},
		{"Vercel AI SDK 7", with(nodeFetch, "User-Agent", "ai-sdk/openai/4.0.46 ai-sdk/provider-utils/5.0.29 runtime/node.js/22"), "vercel-ai-sdk 7", false},
		{"Vercel AI SDK of a major the table does not know", with(nodeFetch, "User-Agent", "ai/9.0.0 ai-sdk/provider-utils/7.0.0 runtime/node.js/24"), "vercel-ai-sdk", false},
		{"LangChain's ChatOpenAI", with(stainlessNode, "User-Agent", "langchainjs-openai/1.0.0 ((node/v20.20.2; linux; x64))", "X-Stainless-Package-Version", "6.49.0"), "langchainjs", false},
		{"LangChain's AzureChatOpenAI", with(stainlessNode, "User-Agent", "langchainjs-azure-openai/2.0.0 ((node/v20.20.2; linux; x64))", "X-Stainless-Package-Version", "6.49.0"), "langchainjs", false},
		{"LangChain's ChatAnthropic", with(stainlessNode, "User-Agent", "Anthropic/JS 0.122.0", "X-Stainless-Package-Version", "0.122.0", "X-Stainless-Timeout", "600",
			"Anthropic-Dangerous-Direct-Browser-Access", "true", "Anthropic-Version", "2023-06-01"), "langchainjs", true},
		{"go-openai", headers("User-Agent", "Go-http-client/1.1", "Accept", "application/json", "Content-Type", "application/json"), "go-openai", true},
		{"go-openai, an image edit", headers("User-Agent", "Go-http-client/1.1", "Accept", "application/json", "Content-Type", "multipart/form-data; boundary=b1"), "go-openai", true},
		{"go-openai, a stream", headers("User-Agent", "Go-http-client/1.1", "Accept", "text/event-stream", "Cache-Control", "no-cache", "Content-Type", "application/json"), "go-openai", true},
		{"langchaingo", headers("User-Agent", "drive/devel langchaingo/v0.1.14 Go/go1.26.8 (linux amd64)", "Content-Type", "application/json"), "langchaingo 0.1.14", false},
		{"langchaingo built without module information", headers("User-Agent", "langchaingo/devel Go/go1.26.8 (linux amd64)", "Content-Type", "application/json"), "langchaingo devel", false},
		{"langchaingo before 0.1.14, Anthropic", headers("User-Agent", "Go-http-client/1.1", "Content-Type", "application/json", "Anthropic-Version", "2023-06-01"), "langchaingo", true},
		{"Portkey forwarding to Anthropic", with(nodeFetch, "User-Agent", "node", "Content-Type", "application/json", "Anthropic-Beta", "messages-2023-12-15", "Anthropic-Version", "2023-06-01"), "portkey-gateway", false},
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := cs.Identify(tt.h)
			assert.True(t, id.Known())
			assert.Equal(t, tt.row, id.Row())
			assert.Equal(t, tt.guessd, id.Guess != "", "guess: %q", id.Guess)
			seen[id.Client] = true
		})
	}
	for _, c := range cs.Entries {
		assert.True(t, seen[c.ID], "no test feeds %s's headers", c.ID)
	}
}

// One Vercel AI SDK program sends three forms of User-Agent (generateText,
// streamText with each provider), and two versions of provider-utils (one
// per provider): it is one row.
func TestIdentifyVercelOneRow(t *testing.T) {
	cs, err := EmbeddedClients()
	require.NoError(t, err)
	rows := map[string]bool{}
	for _, ua := range []string{
		"ai/6.0.326 ai-sdk/provider-utils/4.0.66 runtime/node.js/v20.20.2",
		"ai-sdk/openai/3.0.141 ai-sdk/provider-utils/4.0.66 runtime/node.js/v20.20.2",
		"ai/6.0.326 ai-sdk/provider-utils/4.0.65 runtime/node.js/v20.20.2",
		"ai-sdk/anthropic/3.0.140 ai-sdk/provider-utils/4.0.65 runtime/node.js/v20.20.2",
		"my-app/1.0 ai/6.0.326 ai-sdk/provider-utils/4.0.66 runtime/node.js/22",
	} {
		rows[cs.Identify(headers("User-Agent", ua)).Row()] = true
	}
	assert.Equal(t, map[string]bool{"vercel-ai-sdk 6": true}, rows)
}

// A client the table does not know keeps its product token, as the judge
// named every client before the table; so do the requests the table says
// it cannot tell apart.
func TestIdentifyUnknownClients(t *testing.T) {
	cs, err := EmbeddedClients()
	require.NoError(t, err)
	tests := []struct {
		name string
		h    http.Header
		row  string
	}{
		{"no User-Agent", headers("Content-Type", "application/json"), "unnamed client"},
		{"no headers at all", http.Header{}, "unnamed client"},
		{"curl", headers("User-Agent", "curl/8.5.0", "Accept", "*/*"), "curl"},
		{"a product token without a version", headers("User-Agent", "my-client"), "my-client"},
		{"another Stainless SDK", with(stainlessNode, "User-Agent", "Groq/JS 0.9.0", "X-Stainless-Package-Version", "0.9.0"), "Groq/JS"},
		{"a Go program on net/http (langchaingo before 0.1.14 sends the same to OpenAI)", headers("User-Agent", "Go-http-client/1.1", "Content-Type", "application/json"), "Go-http-client"},
		{"Node's fetch with no User-Agent (Portkey forwarding to OpenAI sends the same)", with(nodeFetch, "User-Agent", "node", "Content-Type", "application/json"), "node"},
		{"a Stainless SDK for Go against another vendor", with(stainlessGo, "User-Agent", "Cerebras/Go 1.0.0"), "Cerebras/Go"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := cs.Identify(tt.h)
			assert.False(t, id.Known())
			assert.Equal(t, tt.row, id.Row())
			assert.Empty(t, id.Remedy("5.1/bearer", "x-api-key"))
		})
	}
	var none *Clients
	assert.Equal(t, "curl", none.Identify(headers("User-Agent", "curl/8.5.0")).Row(), "a nil table knows no client")
}

// Each library that sends x-api-key with its default option gives its own
// Bearer option; a library that sends Bearer by default has no remedy, and
// no library has one for another way of sending.
func TestClientRemedies(t *testing.T) {
	cs, err := EmbeddedClients()
	require.NoError(t, err)
	tests := []struct {
		h    http.Header
		sent string
		want string // a part of the remedy; "" for none
	}{
		{headers("User-Agent", "Anthropic/Go 1.84.0"), "x-api-key", "option.WithAuthToken(key) in place of option.WithAPIKey(key)"},
		{headers("User-Agent", "Anthropic/JS 0.122.0"), "x-api-key", "authToken: key"},
		{headers("User-Agent", "Anthropic/Python 0.121.0"), "x-api-key", "auth_token=key"},
		{headers("User-Agent", "ai-sdk/anthropic/3.0.140 ai-sdk/provider-utils/4.0.65 runtime/node.js/v20.20.2"), "x-api-key", "createAnthropic({ authToken: key })"},
		{with(stainlessNode, "User-Agent", "Anthropic/JS 0.122.0", "Anthropic-Dangerous-Direct-Browser-Access", "true"), "x-api-key", "clientOptions: { authToken: key }"},
		{headers("User-Agent", "drive/devel langchaingo/v0.1.14 Go/go1.26.8 (linux amd64)"), "x-api-key", "anthropic.WithHTTPClient"},
		{with(nodeFetch, "User-Agent", "node", "Anthropic-Beta", "messages-2023-12-15", "Anthropic-Version", "2023-06-01"), "x-api-key", "x-portkey-forward-headers: authorization"},
		{headers("User-Agent", "OpenAI/Go 3.96.0"), "x-api-key", ""},
		{headers("User-Agent", "Anthropic/Go 1.84.0"), "other", ""},
		{headers("User-Agent", "Anthropic/Go 1.84.0"), "", ""},
	}
	for _, tt := range tests {
		id := cs.Identify(tt.h)
		got := id.Remedy("5.1/bearer", tt.sent)
		if tt.want == "" {
			assert.Empty(t, got, "%s sending %q", id.Row(), tt.sent)
			continue
		}
		assert.Contains(t, got, tt.want, id.Row())
		assert.Empty(t, id.Remedy("5.2/use-matching-key", tt.sent), "a remedy is for its row only")
	}
}

// The official Go SDKs, driven against a server that keeps the headers they
// send, are named by library and by the version go.mod requires.
func TestIdentifyDrivenGoSDKs(t *testing.T) {
	cs, err := EmbeddedClients()
	require.NoError(t, err)
	var got http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"object":"list","data":[],"has_more":false}`))
	}))
	defer srv.Close()
	ctx := context.Background()

	oc := openai.NewClient(ooption.WithAPIKey("sk-test"), ooption.WithBaseURL(srv.URL+"/v1/"), ooption.WithMaxRetries(0))
	_, err = oc.Models.List(ctx)
	require.NoError(t, err)
	assert.Equal(t, "openai-go "+moduleVersion(t, "github.com/openai/openai-go/v3"), cs.Identify(got).Row())

	ac := anthropic.NewClient(aoption.WithAPIKey("sk-test"), aoption.WithBaseURL(srv.URL), aoption.WithMaxRetries(0))
	_, err = ac.Models.List(ctx, anthropic.ModelListParams{})
	require.NoError(t, err)
	id := cs.Identify(got)
	assert.Equal(t, "anthropic-sdk-go "+moduleVersion(t, "github.com/anthropics/anthropic-sdk-go"), id.Row())
	assert.NotEmpty(t, got.Get("X-Api-Key"), "the default option sends x-api-key, which the remedy replaces")
	assert.Contains(t, id.Remedy("5.1/bearer", "x-api-key"), "WithAuthToken")
}

// moduleVersion is the version of a module go.mod requires, without its
// v (a test binary carries no module versions of its own).
func moduleVersion(t *testing.T, path string) string {
	t.Helper()
	mod, err := os.ReadFile("../../go.mod")
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(path) + ` v(\S+)`).FindSubmatch(mod)
	require.NotNil(t, m, "go.mod requires no %s", path)
	return string(m[1])
}

// TestLoadClientsBad: every mistake of a table is reported at its place.
func TestLoadClientsBad(t *testing.T) {
	spec, err := embeddedSpec()
	require.NoError(t, err)
	const entry = `clients:
  - id: some-sdk
    package: npm some-sdk
    repository: github.com/some/sdk
    signs:
      - headers: {User-Agent: '^Some/JS (?P<version>\S+)'}
        source: {file: src/client.ts, versions: "1.0.0"}
    remedies:
      - row: 5.1/bearer
        sent: x-api-key
        text: "bearer: true"
        source: {file: src/client.ts, versions: "1.0.0"}
    uses:
      - feature: chat.stream
        endpoint: POST /v1/chat/completions
        basic: true
        needs:
          - property: each data line is JSON
            basic: true
            case: chat-stream
            rule: chat.not-json
            source: {file: src/streaming.ts, versions: "1.0.0"}
          - property: no chunk carries an error member
            case: chat-stream-strict
            check: sse-strict
            rule: chat.error-member
            beyond_spec: true
            source: {file: src/streaming.ts, versions: "1.0.0"}
`
	cat := embeddedCatalog(t)
	_, err = LoadClients("c.yaml", []byte(entry), spec, cat)
	require.NoError(t, err, "the base entry is good")
	tests := []struct {
		name string
		data string
		want string
	}{
		{"unknown field", strings.Replace(entry, "    signs:", "    sgins:", 1),
			`c.yaml:5:5: unknown field "sgins" in client; did you mean "signs"?`},
		{"unknown field of a sign", strings.Replace(entry, "        source: {file: src/client.ts, versions: \"1.0.0\"}\n    remedies", "        sorce: {file: src/client.ts, versions: \"1.0.0\"}\n    remedies", 1),
			`c.yaml:7:9: unknown field "sorce" in sign; did you mean "source"?`},
		{"unknown field of the file", strings.Replace(entry, "clients:", "client:", 1),
			`c.yaml:1:1: unknown field "client" in clients file; known fields: clients; did you mean "clients"?`},
		{"invalid regular expression", strings.Replace(entry, `(?P<version>\S+)'`, `(\S+'`, 1),
			"c.yaml:6:31: User-Agent: invalid regular expression: error parsing regexp: missing closing ): `^Some/JS (\\S+`"},
		{"a named group other than version", strings.Replace(entry, "?P<version>", "?P<v>", 1),
			`c.yaml:6:31: User-Agent: named group "v"; the only one is (?P<version>...)`},
		{"the version given twice", strings.Replace(entry, "      - headers:", "      - version: \"1\"\n        headers:", 1),
			`c.yaml:7:31: User-Agent: the sign's version is given already; a sign gives it once`},
		{"an empty pattern", strings.Replace(entry, `'^Some/JS (?P<version>\S+)'`, `''`, 1),
			`c.yaml:6:31: User-Agent: empty pattern; '^$' matches an absent header`},
		{"a header given twice", strings.Replace(entry, "{User-Agent:", "{user-agent: '.', User-Agent:", 1),
			`c.yaml:6:31: header User-Agent is given twice (as User-Agent and user-agent)`},
		{"not a header name", strings.Replace(entry, "{User-Agent:", "{User Agent:", 1),
			`c.yaml:6:31: "User Agent" is not a header name`},
		{"duplicate id", entry + strings.TrimPrefix(entry, "clients:\n"),
			`c.yaml:29:9: duplicate id "some-sdk" (first declared at c.yaml:2:9)`},
		{"an id that is no row name", strings.Replace(entry, "id: some-sdk", "id: Some SDK", 1),
			`c.yaml:2:9: id "Some SDK" must match ^[a-z0-9][a-z0-9.-]*$`},
		{"a missing field", strings.Replace(entry, "    package: npm some-sdk\n", "", 1),
			`c.yaml:2:5: missing field package`},
		{"a sign without its source", strings.Replace(entry, "        source: {file: src/client.ts, versions: \"1.0.0\"}\n    remedies", "    remedies", 1),
			`c.yaml:6:9: signs[0]: missing field source; say where the fact comes from (file, versions)`},
		{"a source without versions", strings.Replace(entry, `{file: src/client.ts, versions: "1.0.0"}`, `{file: src/client.ts}`, 1),
			`c.yaml:7:18: signs[0].source: missing field versions`},
		{"a remedy for an unknown row", strings.Replace(entry, "row: 5.1/bearer", "row: 5.1/berer", 1),
			`c.yaml:9:14: row: unknown requirement "5.1/berer"; did you mean "5.1/bearer"?`},
		{"a remedy for a section", strings.Replace(entry, "row: 5.1/bearer", `row: "5.1"`, 1),
			`c.yaml:9:14: row "5.1": give a requirement id such as 5.1/bearer`},
		{"a remedy given twice", strings.Replace(entry, "    remedies:\n", "    remedies:\n      - {row: 5.1/bearer, sent: x-api-key, text: t, source: {file: f, versions: v}}\n", 1),
			`c.yaml:10:9: remedies[1]: a second remedy for 5.1/bearer sending x-api-key (the first is remedies[0])`},
		{"an empty text", strings.Replace(entry, `text: "bearer: true"`, `text: ""`, 1),
			`c.yaml:11:15: remedies[0].text: empty; give a value or leave the field out`},
		{"a YAML syntax error", strings.Replace(entry, "signs:\n", "signs: [\n", 1),
			"c.yaml:8:5: ',' or ']' must be specified"},
		{"no entries", "clients: []\n", `c.yaml:1:10: clients: empty list`},
		{"a need citing no case of the catalog", strings.Replace(entry, "case: chat-stream\n", "case: chat-streem\n", 1),
			`c.yaml:20:19: case "chat-streem" is not in the catalog; did you mean "chat-stream"?`},
		{"a need citing no stream rule", strings.Replace(entry, "rule: chat.not-json", "rule: chat.not-jsn", 1),
			`c.yaml:21:19: rule "chat.not-jsn" is no stream rule; did you mean "chat.not-json"?`},
		{"a need citing no check", strings.Replace(entry, "check: sse-strict", "check: sse-strikt", 1),
			`c.yaml:25:20: check "sse-strikt" is no check of a result's reasons`},
		{"a need's reason that is no regular expression", strings.Replace(entry, "rule: chat.not-json\n", "rule: chat.not-json\n            reason: 'got ('\n", 1),
			"c.yaml:22:21: reason: error parsing regexp: missing closing ): `got (`"},
		{"a stream rule under another check", strings.Replace(entry, "check: sse-strict", "check: schema", 1),
			`c.yaml:25:20: check schema: a stream rule is judged by check sse or sse-strict`},
		{"a need beyond the spec held by a verified case", strings.Replace(entry, "case: chat-stream-strict", "case: chat-stream", 1),
			`c.yaml:24:19: case chat-stream is verified: a need the spec does not state is held by a strict or explore case`},
		{"a need citing a case of another feature", strings.Replace(entry, "case: chat-stream\n", "case: chat-json\n", 1),
			`c.yaml:20:19: case chat-json is of feature chat.basic, not chat.stream`},
		{"an unknown feature", strings.Replace(entry, "feature: chat.stream", "feature: chat.steam", 1),
			`c.yaml:14:18: feature "chat.steam" is not in the feature catalog; did you mean "chat.stream"?`},
		{"an endpoint the feature's cases do not send", strings.Replace(entry, "endpoint: POST /v1/chat/completions", "endpoint: POST /v1/messages", 1),
			`c.yaml:15:19: endpoint "POST /v1/messages": the cases of chat.stream send POST /v1/chat/completions`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadClients("c.yaml", []byte(tt.data), spec, cat)
			var ds Diagnostics
			require.ErrorAs(t, err, &ds)
			assert.Contains(t, err.Error(), tt.want)
			for _, d := range ds {
				assert.Positive(t, d.Line, d.String())
			}
		})
	}
}

// TestNeedMatchesReason: a need with a reason pattern is failed only by
// the reasons of its check whose text matches it; one without takes every
// reason of its check.
func TestNeedMatchesReason(t *testing.T) {
	status := func(code string) vocab.Reason {
		return vocab.Reason{Check: "status", Message: "HTTP status " + code + ", want 2xx", Expected: "2xx", Actual: code}
	}
	lenient := Need{Check: "status", reason: regexp.MustCompile(`HTTP status [45]\d\d`)}
	strict := Need{Check: "status"}
	tests := []struct {
		name   string
		need   Need
		reason vocab.Reason
		want   bool
	}{
		{"a 404 fails a library that takes below 400", lenient, status("404"), true},
		{"a 300 leaves it holding", lenient, status("300"), false},
		{"a 300 fails a need without a pattern", strict, status("300"), true},
		{"another check leaves it holding", lenient, vocab.Reason{Check: "schema", Message: "HTTP status 404"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.need.Matches(tt.reason))
		})
	}
}

// embeddedCatalog is the committed catalog, whose cases a table's needs
// cite.
func embeddedCatalog(t *testing.T) *Catalog {
	t.Helper()
	cat, err := Load(cases.FS, fixtures.FS, nil)
	require.NoError(t, err)
	return cat
}
