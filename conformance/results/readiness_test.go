package results

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/vocab"
)

// passing is a result of every case the table cites, each passed.
func passing(t *testing.T, table *catalog.Clients) []Result {
	t.Helper()
	seen := map[string]bool{}
	var rs []Result
	for _, c := range table.Entries {
		for _, u := range c.Uses {
			for _, n := range u.Needs {
				if !seen[n.Case] {
					seen[n.Case] = true
					rs = append(rs, Result{Case: n.Case, Feature: u.Feature, Model: "m", Tier: n.Tier(), Status: vocab.StatusPass})
				}
			}
		}
	}
	return rs
}

// with replaces the result of a case.
func withResult(rs []Result, c string, st vocab.Status, reasons ...vocab.Reason) []Result {
	out := []Result{}
	for _, r := range rs {
		if r.Case == c {
			r.Status, r.Reasons = st, reasons
		}
		out = append(out, r)
	}
	return out
}

// without leaves out the results of a tier, as a run with --tier '!strict'.
func without(rs []Result, tier vocab.Tier) []Result {
	out := []Result{}
	for _, r := range rs {
		if r.Tier != tier {
			out = append(out, r)
		}
	}
	return out
}

func streamReason(check, rule string) vocab.Reason {
	return vocab.Reason{Check: check, Where: "event 2", Message: "a rule broken (" + rule + ")"}
}

var (
	textPlain = vocab.Reason{Check: "content_type", Message: `Content-Type response media type is "text/plain", want application/json`}
	notSSE    = vocab.Reason{Check: "content_type", Message: `Content-Type response media type is "application/json", want text/event-stream`}
	notFound  = vocab.Reason{Check: "status", Expected: "200", Actual: `404 {"error":{"message":"Route not found"}}`, Message: "HTTP status 404, want 2xx"}
)

func readinessVerdicts(rows []ClientReadiness) map[string]Readiness {
	out := map[string]Readiness{}
	for _, r := range rows {
		out[r.Client] = r.Verdict
	}
	return out
}

func featureOf(t *testing.T, rows []ClientReadiness, client, feature string) FeatureReadiness {
	t.Helper()
	for _, r := range rows {
		for _, f := range r.Features {
			if r.Client == client && f.Feature == feature {
				return f
			}
		}
	}
	require.Failf(t, "no row", "%s × %s", client, feature)
	return FeatureReadiness{}
}

// TestRows: each state is reached from results a faulty gateway gives, and
// each library's verdict follows what its own code depends on.
func TestReadinessRows(t *testing.T) {
	table, err := catalog.EmbeddedClients()
	require.NoError(t, err)
	clean := passing(t, table)
	tests := []struct {
		name    string
		rs      []Result
		want    map[string]Readiness
		feature [3]string // client, feature, its verdict
		because string    // in the first client's Because
	}{
		{name: "every check passes", rs: clean,
			want:    map[string]Readiness{"openai-go": ReadyYes, "go-openai": ReadyYes, "langchaingo": ReadyYes},
			feature: [3]string{"openai-go", "chat.stream", string(ReadyYes)}},
		// go-openai and the AI SDK read any Content-Type, and their needs
		// are held by the verified case; Python reads the body as JSON.
		{name: "JSON as text/plain breaks the Stainless Go and JS readers only",
			rs:      withResult(withResult(withResult(clean, "chat-json-strict", vocab.StatusFail, textPlain), "messages-json-strict", vocab.StatusFail, textPlain), "messages-json-text-blocks", vocab.StatusFail, textPlain),
			want:    map[string]Readiness{"openai-go": ReadyNot, "openai-node": ReadyNot, "anthropic-sdk-go": ReadyNot, "go-openai": ReadyYes, "vercel-ai-sdk": ReadyYes, "openai-python": ReadyYes, "langchaingo": ReadyYes},
			feature: [3]string{"openai-go", "chat.basic", string(ReadyNot)}, because: "chat-json-strict content_type fails"},
		{name: "image routes missing limit the libraries that make images",
			rs:      withResult(withResult(clean, "gen-basic", vocab.StatusFail, notFound), "edit-multipart-one-ref", vocab.StatusFail, notFound),
			want:    map[string]Readiness{"openai-go": ReadyLimited, "go-openai": ReadyLimited, "anthropic-sdk-go": ReadyYes, "langchaingo": ReadyYes},
			feature: [3]string{"openai-go", "images.generate", string(ReadyNot)}, because: "images.generate: gen-basic status fails"},
		{name: "ids changing mid-stream limit openai-go's accumulator only",
			rs:      withResult(clean, "chat-stream-strict", vocab.StatusFail, streamReason("sse-strict", "chat.id-changed")),
			want:    map[string]Readiness{"openai-go": ReadyLimited, "openai-node": ReadyYes, "go-openai": ReadyYes},
			feature: [3]string{"openai-go", "chat.stream", string(ReadyLimited)}, because: "rule chat.id-changed"},
		{name: "an error member on chunks stops openai-go's stream reader",
			rs:      withResult(clean, "chat-stream-strict", vocab.StatusFail, streamReason("sse-strict", "chat.error-member")),
			want:    map[string]Readiness{"openai-go": ReadyLimited, "openai-node": ReadyYes},
			feature: [3]string{"openai-go", "chat.stream", string(ReadyNot)}, because: "chat.error-member"},
		{name: "a stream failing a rule no library needs leaves them ready",
			rs:      withResult(clean, "chat-stream", vocab.StatusFail, streamReason("sse", "chat.done-missing")),
			want:    map[string]Readiness{"openai-go": ReadyYes, "go-openai": ReadyYes, "vercel-ai-sdk": ReadyYes},
			feature: [3]string{"go-openai", "chat.stream", string(ReadyYes)}},
		// The stream is read whatever its Content-Type says, so its rules
		// were judged: those that held hold.
		{name: "a stream under a wrong Content-Type is judged by its rules",
			rs:      withResult(clean, "chat-stream", vocab.StatusFail, notSSE),
			want:    map[string]Readiness{"go-openai": ReadyYes, "langchaingo": ReadyYes},
			feature: [3]string{"go-openai", "chat.stream", string(ReadyYes)}},
		{name: "a refused stream fails the stream readers' status needs",
			rs:      withResult(clean, "chat-stream", vocab.StatusFail, vocab.Reason{Check: "status", Message: "HTTP status 500, want 2xx"}),
			want:    map[string]Readiness{"go-openai": ReadyLimited, "openai-node": ReadyLimited},
			feature: [3]string{"openai-node", "chat.stream", string(ReadyNot)}, because: "chat-stream status fails"},
		{name: "the strict tier left out leaves the needs beyond the spec unknown",
			rs:      without(clean, vocab.TierStrict),
			want:    map[string]Readiness{"anthropic-sdk-go": ReadyUnknown, "openai-python": ReadyYes},
			feature: [3]string{"anthropic-sdk-go", "messages.stream", string(ReadyUnknown)}, because: "case messages-stream-strict (strict tier) is not in this run"},
		{name: "a key not set leaves its features unknown",
			rs:      withResult(clean, "messages-json", vocab.StatusSkip, vocab.Reason{Check: vocab.CheckKeyMissing, Message: "no messages key (set GWCONFORM_MESSAGES_KEY)"}),
			want:    map[string]Readiness{"anthropic-sdk-typescript": ReadyUnknown, "openai-go": ReadyYes},
			feature: [3]string{"anthropic-sdk-typescript", "messages.basic", string(ReadyUnknown)}, because: "skip key-missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows := ReadinessRows(table, nil, tt.rs)
			got := readinessVerdicts(rows)
			for client, want := range tt.want {
				assert.Equal(t, want, got[client], client)
			}
			f := featureOf(t, rows, tt.feature[0], tt.feature[1])
			assert.Equal(t, Readiness(tt.feature[2]), f.Verdict, "%s × %s", tt.feature[0], tt.feature[1])
			for _, r := range rows {
				if r.Client != tt.feature[0] {
					continue
				}
				if tt.because == "" {
					assert.Empty(t, r.Because)
				} else {
					assert.True(t, strings.Contains(strings.Join(r.Because, "\n"), tt.because), "%s: %v", tt.because, r.Because)
				}
			}
		})
	}
}

// TestReadinessCites: a verdict names the failing check and the
// library's dependency, its source, and whether a drive confirmed it.
func TestReadinessCites(t *testing.T) {
	table, err := catalog.EmbeddedClients()
	require.NoError(t, err)
	notFound := vocab.Reason{Check: "status", Message: "HTTP status 404, want 2xx"}
	tests := []struct {
		client, failing string
		reason          vocab.Reason
		want            []string
	}{
		{"openai-go", "chat-json-strict", textPlain, []string{"chat.basic", "chat-json-strict content_type fails", "text/plain", "openai-go needs it",
			"github.com/openai/openai-go internal/requestconfig/requestconfig.go RequestConfig.Execute", "3.52.0", "driven 3.96.0"}},
		{"openai-python", "chat-json", notFound, []string{"chat.basic", "chat-json status fails", "openai-python needs it",
			"github.com/openai/openai-python src/openai/_base_client.py", "3.3.1", "source only, not yet driven"}},
	}
	for _, tt := range tests {
		t.Run(tt.client, func(t *testing.T) {
			rows := ReadinessRows(table, []string{tt.client}, withResult(passing(t, table), tt.failing, vocab.StatusFail, tt.reason))
			require.Len(t, rows, 1)
			require.NotEmpty(t, rows[0].Because)
			for _, want := range tt.want {
				assert.Contains(t, rows[0].Because[0], want)
			}
		})
	}
}

// TestSelected: --clients globs select libraries; none selects all.
func TestClientSelected(t *testing.T) {
	for _, tt := range []struct {
		id    string
		globs []string
		want  bool
	}{
		{"openai-go", nil, true},
		{"openai-go", []string{"openai-*"}, true},
		{"go-openai", []string{"openai-*"}, false},
		{"anthropic-sdk-go", []string{"openai-go", "anthropic-*"}, true},
	} {
		assert.Equal(t, tt.want, ClientSelected(tt.id, tt.globs), "%s %v", tt.id, tt.globs)
	}
}

// TestCheckClientNames: a glob matching no library and a required name
// that is none are refused before the run, with a did-you-mean.
func TestCheckClientNames(t *testing.T) {
	table, err := catalog.EmbeddedClients()
	require.NoError(t, err)
	require.NoError(t, CheckClientNames(table, []string{"openai-*", "langchaingo"}, []string{"openai-go"}))
	err = CheckClientNames(table, []string{"opnai-*"}, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `--clients "opnai-*" matches no client library`)
	err = CheckClientNames(table, nil, []string{"openai-goo"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `--require-clients "openai-goo" is no client library`)
	assert.Contains(t, err.Error(), `did you mean "openai-go"?`)
	assert.Error(t, CheckClientNames(table, nil, []string{"portkey-gateway"}), "a relay has no readiness")
}

// TestRequiredFailing: only the named libraries decide, and only NOT
// READY or LIMITED fails them; UNKNOWN does not.
func TestRequiredFailing(t *testing.T) {
	rows := []ClientReadiness{{Client: "a", Verdict: ReadyNot}, {Client: "b", Verdict: ReadyLimited}, {Client: "c", Verdict: ReadyUnknown}, {Client: "d", Verdict: ReadyYes}}
	got := RequiredFailing(rows, []string{"b", "c", "d"})
	require.Len(t, got, 1)
	assert.Equal(t, "b", got[0].Client)
}
