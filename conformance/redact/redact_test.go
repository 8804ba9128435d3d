package redact

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
)

func TestCredentials(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Authorization: Bearer abc.def-ghi", "Authorization: Bearer [REDACTED]"},
		{"bearer tok_123456", "bearer [REDACTED]"},
		{`{"x-api-key": "k-123456"}`, `{"x-api-key": "[REDACTED]"}`},
		{"/v1/models?key=abcdef&x=1", "/v1/models?key=abcdef&x=1"}, // "key" alone is too common a word
		{"/v1/models?api_key=abcdef&x=1", "/v1/models?api_key=[REDACTED]&x=1"},
		{"uses sk-local-text-0123456789", "uses sk-[REDACTED]"},
		{"max_tokens: 1024 and tokens=5", "max_tokens: 1024 and tokens=5"},
		{"gen-image-2.5-flare returned 400", "gen-image-2.5-flare returned 400"},
		// The runner's marker, met again by the report's patterns, stays
		// whole (it once became "[redacted]]").
		{"authorization: [REDACTED]", "authorization: [REDACTED]"},
		{"Authorization: Bearer [REDACTED]", "Authorization: Bearer [REDACTED]"},
		{`{"api_key":"[REDACTED]"}`, `{"api_key":"[REDACTED]"}`},
		// A reproduction names the key's variable: no secret, kept whole
		// (it once became "Bearer [REDACTED]}").
		{`-H "Authorization: Bearer ${GWCONFORM_IMAGE_KEY}"`, `-H "Authorization: Bearer ${GWCONFORM_IMAGE_KEY}"`},
		{`-H "x-api-key: ${GWCONFORM_MESSAGES_KEY}"`, `-H "x-api-key: ${GWCONFORM_MESSAGES_KEY}"`},
		{`-H 'X-Portkey-Api-Key: ${RELAY_TOKEN}'`, `-H 'X-Portkey-Api-Key: ${RELAY_TOKEN}'`},
		// The spec's own words name the key by a placeholder: no secret,
		// kept as the console shows it (issue 33: every report said
		// "Authorization: Bearer [REDACTED]" where the spec says <API_KEY>).
		{"Every request carries the header `Authorization: Bearer <API_KEY>`.", "Every request carries the header `Authorization: Bearer <API_KEY>`."},
		{"Authorization: Bearer <API_KEY>", "Authorization: Bearer <API_KEY>"},
		{`{"api_key": "<api_key>"}`, `{"api_key": "<api_key>"}`},
		{`{"message":"send Authorization: Bearer \u003cAPI_KEY\u003e"}`, `{"message":"send Authorization: Bearer \u003cAPI_KEY\u003e"}`},
		// A secret in angle brackets is still one.
		{"Authorization: Bearer <k3y-0042abcdef>", "Authorization: Bearer [REDACTED]"},
		{"Authorization: Bearer <API_KEY>abc123", "Authorization: Bearer [REDACTED]"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			assert.Equal(t, tt.want, Credentials(tt.in))
			assert.Equal(t, tt.want, Credentials(tt.want), "idempotent")
		})
	}
}

func TestSecrets(t *testing.T) {
	const key = "k3y-Distinctive-0042"
	long := strings.Repeat("a", 30) + key + strings.Repeat("b", 30)
	tests := []struct{ name, in, want string }{
		{"exact", "echo " + key + "!", "echo [REDACTED]!"},
		{"twice", key + key, "[REDACTED][REDACTED]"},
		{"no key", "max_tokens: 256", "max_tokens: 256"},
		// A cut through the key leaves its first bytes before the mark.
		{"cut by Truncate", results.Truncate(long, 40), strings.Repeat("a", 30) + "[REDACTED]… (80 bytes)"},
		{"a short prefix is not a key", "k3y… (9 bytes)", "k3y… (9 bytes)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Secrets(tt.in, []string{key}))
		})
	}
}

func TestResultRedactsEveryText(t *testing.T) {
	const key = "sk-Distinctive-123"
	res := results.Result{
		Model:      "m-" + key,
		Reasons:    []vocab.Reason{{Where: key, Expected: key, Actual: key, Message: key}},
		EventTypes: []string{key},
		Request:    &results.Request{Path: "/v1?k=" + key, Body: key},
	}
	Result(&res, []string{key})
	assert.NotContains(t, res.Model+res.Reasons[0].String()+res.EventTypes[0]+res.Request.Path+res.Request.Body, key)
	assert.Equal(t, "m-[REDACTED]", res.Model)
}

// Headers are redacted by name where the name says the value is a secret,
// never for merely holding a word such as "key": a relay's diagnostics stay
// readable.
func TestSecretHeader(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"Authorization", "proxy-authorization", "Cookie", "Set-Cookie", "X-Api-Key", "Api-Key",
		"X-Auth-Token", "X-Auth-User", "X-Portkey-Api-Key", "X-Goog-Api-Key", "Cf-Access-Token", "X-Client-Secret",
		"X-Db-Password", "X-Amz-Signature", "X-Upstream-Credential", "X-Upstream-Credentials"} {
		assert.True(t, SecretHeader(name), name)
	}
	for _, name := range []string{"X-Portkey-Provider", "X-Portkey-Gateway-Exception", "X-Portkey-Trace-Id", "Keep-Alive",
		"X-Request-Id", "Content-Type", "X-Token-Count", "X-Keyring-Region", "X-Ratelimit-Remaining-Tokens", "Authorization-Hint",
		"Access-Control-Allow-Credentials", "Access-Control-Allow-Headers"} {
		assert.False(t, SecretHeader(name), name)
	}
}
