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
		{"msg-sonnet-5", "anthropic-2/msg-sonnet-5", true},
		{"gen-5.5", "gen-5.5-0613", true},
		{"gen-5.5", "gen-5.5-20260501", true},
		{"gen-5.5", "gen-5.5-2026-05-01", true},
		{"msg-opus-5", "msg-opus-5@20260501", true},
		{"gen-5.5", "openai/gen-5.5-2026-05-01", true},
		{"msg-haiku-4-5-20251001", "msg-haiku-4-5", true},
		{"msg-haiku-4-5-20251001", "anthropic/msg-haiku-4-5", true},
		{"msg-haiku-4-5-20251001", "msg-haiku-4-5-20251001", true},

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
		// A prefix must be a vendor segment, not a path or an empty name.
		{"gen-5.5", "open.ai/gen-5.5", false},
		{"gen-5.5", "a/b/gen-5.5", false},
		{"gen-5.5", "openai/", false},
		{"gen-5.5", "", false},
		{"", "gen-5.5", false},
		{"gen-5.5", "GEN-5.5", false},
	} {
		t.Run(tc.requested+" as "+tc.got, func(t *testing.T) {
			assert.Equal(t, tc.same, Same(tc.requested, tc.got))
		})
	}
}
