package plan

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gwconform/gwconform/conformance/catalog"
)

// A request goes to the base, and carries the kind headers, of the
// endpoint it calls: the messages key sent to an image endpoint (a
// key-permission negative) is routed as an image request.
func TestRequestsFollowTheEndpoint(t *testing.T) {
	target := Target{BaseURL: "https://gw.test/openai",
		KindBaseURLs: map[catalog.KeyKind]string{catalog.KeyMessages: "https://gw.test/anthropic", catalog.KeyAlt: "https://gw.test/anthropic"},
		Headers:      http.Header{"X-Team": {"a"}},
		KeyHeaders: map[catalog.KeyKind]http.Header{
			catalog.KeyMessages: {"X-Provider": {"anthropic"}},
			catalog.KeyImage:    {"X-Provider": {"openai-images"}},
			catalog.KeyText:     {"X-Provider": {"openai"}},
		}}
	for _, tt := range []struct {
		kind     catalog.KeyKind
		path     string
		base     string
		provider []string
	}{
		{catalog.KeyMessages, "/v1/messages", "https://gw.test/anthropic", []string{"anthropic"}},
		{catalog.KeyMessages, "/v1/models", "https://gw.test/anthropic", []string{"anthropic"}},
		{catalog.KeyMessages, "/v1/images/generations", "https://gw.test/openai", []string{"openai-images"}},
		{catalog.KeyText, "/v1/images/edits", "https://gw.test/openai", []string{"openai-images"}},
		{catalog.KeyAlt, "/v1/images/generations", "https://gw.test/openai", []string{"openai-images"}},
		{catalog.KeyImage, "/v1/chat/completions", "https://gw.test/openai", []string{"openai"}},
		{catalog.KeyAlt, "/v1/messages", "https://gw.test/anthropic", nil},
		{"", "/v1/models", "https://gw.test/openai", nil},
	} {
		h := http.Header{}
		target.SetHeaders(h, tt.kind, tt.path)
		assert.Equal(t, tt.base, target.BaseForPath(tt.kind, tt.path), "%s key to %s", tt.kind, tt.path)
		assert.Equal(t, tt.provider, h.Values("X-Provider"), "%s key to %s", tt.kind, tt.path)
		assert.Equal(t, []string{"a"}, h.Values("X-Team"), "every request's headers")
	}
}
