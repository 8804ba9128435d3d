package modelid

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSame(t *testing.T) {
	for _, tc := range []struct {
		requested, got string
		same           bool
	}{
		{"gen-5.5", "gen-5.5", true},
		{"gen-5.5", "openai/gen-5.5", true},
		{"msg-sonnet-5", "anthropic/msg-sonnet-5", true},
		{"gen-5.5", "gen-5.5-0613", true},
		{"gen-5.5", "gen-5.5-20260501", true},
		{"gen-5.5", "gen-5.5-2026-05-01", true},
		{"msg-opus-5", "msg-opus-5@20260501", true},
		{"gen-5.5", "openai/gen-5.5-2026-05-01", true},
		{"msg-haiku-4-5-20251001", "msg-haiku-4-5", true},
		{"msg-haiku-4-5-20251001", "anthropic/msg-haiku-4-5", true},
		{"msg-haiku-4-5-20251001", "msg-haiku-4-5-20251001", true},
		// Relays' and clouds' spellings: a provider segment with an
		// underscore, Bedrock's region and vendor in dots with its
		// version, -latest, a numbered stable version.
		{"msg-sonnet-5", "vertex_ai/msg-sonnet-5", true},
		{"gen-5.5", "azure_ai/gen-5.5", true},
		{"msg-sonnet-5", "us.anthropic.msg-sonnet-5-v1:0", true},
		{"msg-sonnet-5", "anthropic.msg-sonnet-5-20260101-v1:0", true},
		{"msg-sonnet-5", "msg-sonnet-5-latest", true},
		{"alt-flash", "alt-flash-001", true},
		// The clouds' spellings of the audit: Vertex's dated id, Bedrock
		// behind a path, Azure's two segments, Vertex's resource name.
		{"claude-haiku-4-5-20251001", "claude-haiku-4-5@20251001", true},
		{"msg-haiku-4-5-20251001", "msg-haiku-4-5@20251001", true},
		{"claude-sonnet-5", "bedrock/us.anthropic.claude-sonnet-5-v1:0", true},
		{"gpt-5.5", "azure/openai/gpt-5.5", true},
		{"gemini-flash", "publishers/google/models/gemini-flash", true},
		{"claude-sonnet-5", "publishers/anthropic/models/claude-sonnet-5@20260101", true},
		// The gateway's own id requested (a resolved name): its bare form
		// and its other spellings name it too.
		{"openai/gpt-5.5", "gpt-5.5", true},
		{"gpt-5.5", "openai/gpt-5.5-2026-05-01", true},
		{"us.anthropic.claude-sonnet-5-v1:0", "claude-sonnet-5", true},

		// Another model, or another snapshot of it.
		{"msg-sonnet-5", "msg-opus-5", false},
		{"msg-haiku-4-5-20251001", "msg-haiku-4-5-20250101", false},
		{"msg-haiku-4-5-20251001", "msg-haiku", false},
		{"gen-image-2.5-flare", "gen-image-2", false},
		{"gen-image-2", "gen-image-2.5-flare", false},
		{"alt-flash", "alt-flash-lite", false},
		{"alt-flash", "alt-flash-2", false},
		// Suffixes that are no dates: a version, an impossible month or day.
		{"gen-5.5", "gen-5.5-2024", false},
		{"gen-5.5", "gen-5.5-1399", false},
		{"gen-5.5", "gen-5.5-20261340", false},
		{"gen-5.5", "gen-5.5@0501", false},
		{"gen-5.5", "gen-5.5-2026-5-1", false},
		// The same spellings naming another snapshot, or with a prefix the
		// table does not hold: another model.
		{"claude-haiku-4-5-20251001", "claude-haiku-4-5@20250101", false},
		{"claude-sonnet-5", "bedrock/xx.anthropic.claude-sonnet-5-v1:0", false},
		{"gpt-5.5", "azure/meta-llama/gpt-5.5", false},
		{"gpt-5.5", "meta-llama/gpt-5.5", false},
		{"gpt-5.5", "anthropic-2/gpt-5.5", false},
		{"gemini-flash", "publishers/acme/models/gemini-flash", false},
		{"gemini-flash", "publishers/google/gemini-flash", false},
		// A prefix must be a vendor segment, not a path or an empty name.
		{"gen-5.5", "open.ai/gen-5.5", false},
		{"gen-5.5", "a/b/gen-5.5", false},
		{"gen-5.5", "openai/", false},
		{"gen-5.5", "", false},
		{"", "gen-5.5", false},
		{"gen-5.5", "GEN-5.5", false},
		{"alt-flash", "alt-flash-100", false},
		{"msg-sonnet-5", "msg-sonnet-5-v1:0-extra", false},
		{"gen-5.5", "gen-5.5.anthropic", false},
		{"gen-5.5", "us.an-thropic.gen-5.5", false},
		{"gen-5", "gen-5.5", false},
		{"gpt-5.5", "gen-5.5", false},
	} {
		t.Run(tc.requested+" as "+tc.got, func(t *testing.T) {
			assert.Equal(t, tc.same, Same(tc.requested, tc.got))
		})
	}
}

func TestNames(t *testing.T) {
	for _, tc := range []struct {
		spec, listed string
		names        bool
		plain        bool
		word         string
	}{
		{"gen-5.5", "gen-5.5", true, true, "gen"},
		{"gen-5.5", "gpt-5.5", true, true, "gpt"},
		{"gen-image-2.5-flare", "gpt-image-2.5-flare", true, true, "gpt"},
		{"gen-5.5", "openai/gpt-5.5", true, true, "openai/gpt"},
		{"gen-5.5", "azure_ai/gpt-5.5", true, true, "azure_ai/gpt"},
		{"gen-5.5", "openai/gen-5.5", true, true, "openai/gen"},
		{"msg-sonnet-5", "us.anthropic.claude-sonnet-5-v1:0", true, false, ""},
		{"msg-sonnet-5", "anthropic.claude-sonnet-5", true, true, "anthropic.claude"},
		{"msg-sonnet-5", "claude-sonnet-5@20260101", true, false, ""},
		{"msg-sonnet-5", "claude-sonnet-5-latest", true, false, ""},
		{"alt-flash", "gemini-flash-001", true, false, ""},
		// The audit's spellings, in lists: Vertex's dated id (the same
		// snapshot: plain), Bedrock behind a path, Azure's two segments,
		// Vertex's resource name.
		{"msg-haiku-4-5-20251001", "claude-haiku-4-5@20251001", true, true, "claude"},
		{"msg-sonnet-5", "bedrock/us.anthropic.claude-sonnet-5-v1:0", true, false, ""},
		{"msg-sonnet-5", "bedrock/us.anthropic.claude-sonnet-5", true, true, "bedrock/us.anthropic.claude"},
		{"gen-5.5", "azure/openai/gpt-5.5", true, true, "azure/openai/gpt"},
		{"alt-flash", "publishers/google/models/gemini-flash", true, true, "publishers/google/models/gemini"},
		{"msg-sonnet-5", "publishers/anthropic/models/claude-sonnet-5@20260101", true, false, ""},
		{"msg-haiku-4-5-20251001", "claude-haiku-4-5-20251001", true, true, "claude"},
		// The undated alias of a dated id names it, but is no plain name.
		{"msg-haiku-4-5-20251001", "claude-haiku-4-5", true, false, ""},

		// Other models.
		{"gen-image-2", "gpt-image-2.5-flare", false, false, ""},
		{"gen-5.5", "gpt-5.5-turbo", false, false, ""},
		{"gen-5.5", "gpt-4-5.5", false, false, ""},
		{"alt-flash", "gemini-2.5-flash", false, false, ""},
		{"alt-flash", "gemini-flash-lite", false, false, ""},
		{"gen-5.5", "a/b/gpt-5.5", false, false, ""},
		// No word or prefix the table does not hold: chatgpt is no vendor
		// word of gen, meta-llama/ no provider prefix; another snapshot in
		// Vertex's spelling is another model.
		{"gen-image-2", "chatgpt-image-2", false, false, ""},
		{"gen-5.5", "chatgpt-5.5", false, false, ""},
		{"gen-5.5", "meta-llama/gpt-5.5", false, false, ""},
		{"gen-5.5", "grok-5.5", false, false, ""},
		{"gen-5.5", "claude-5.5", false, false, ""},
		{"msg-haiku-4-5-20251001", "claude-haiku-4-5@20250101", false, false, ""},
		{"alt-flash", "publishers/meta/models/gemini-flash", false, false, ""},
		{"gen-5.5", "company-chat", false, false, ""},
		{"gen-5.5", "5.5", false, false, ""},
		{"msg-haiku-4-5-20251001", "claude-haiku-4-5-20250101", false, false, ""},
		// An id without a neutral word names itself only.
		{"company-chat", "company-chat", true, true, ""},
		{"company-chat", "x-chat", false, false, ""},
	} {
		t.Run(tc.spec+" as "+tc.listed, func(t *testing.T) {
			n, ok := Names(tc.spec, tc.listed)
			assert.Equal(t, tc.names, ok)
			if ok {
				assert.Equal(t, tc.plain, n.Plain, "plain")
				assert.Equal(t, tc.word, n.Word, "word")
			}
		})
	}
}

// The vendor table is read strictly: the embedded one reads, and one with
// an unknown key or a word without a vendor word is refused.
func TestVendorTable(t *testing.T) {
	assert.Equal(t, []string{"gen", "msg", "alt"}, NeutralWords)
	assert.Equal(t, "gpt", VendorWord("gen"))
	for _, bad := range []string{"words: []\n", "words: [{neutral: gen, vendor: []}]\n", "words: [{neutral: gen, vendor: [gpt]}]\nprefix: {}\n"} {
		_, err := readTable([]byte(bad))
		assert.Error(t, err, bad)
	}
}

func TestVendorSpellings(t *testing.T) {
	assert.Equal(t, []string{"gpt-image-2"}, VendorSpellings("gen-image-2"))
	assert.Equal(t, []string{"claude-sonnet-4-6"}, VendorSpellings("msg-sonnet-4-6"))
	assert.Nil(t, VendorSpellings("company-chat"))
}

func TestRename(t *testing.T) {
	assert.Equal(t, "claude-sonnet-4-6", Rename("msg-sonnet-4-6", "claude"))
	assert.Equal(t, "anthropic/claude-sonnet-4-6", Rename("msg-sonnet-4-6", "anthropic/claude"))
	assert.Equal(t, "msg-sonnet-4-6", Rename("msg-sonnet-4-6", ""))
	assert.Equal(t, "company-chat", Rename("company-chat", "claude"))
}
