package check

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gwconform/gwconform/conformance/catalog"
)

// A generic check's reason names the spec rows it stands for: those naming
// its field, else the case's rows, by section when there are many.
func TestCite(t *testing.T) {
	row := func(id, section, sentence string) *catalog.SpecRow {
		return &catalog.SpecRow{ID: id, Section: section, Sentence: sentence}
	}
	stop := row("2.4/stop-reason", "2.4", "`stop_reason` string: `end_turn` and `max_tokens` seen.")
	text := row("2.4/content-text", "2.4", "`content[].text` string.")
	bound := row("8/max-tokens-256", "8", "`max_tokens` verified: 256.")
	path := row("intro/paths-v1", "intro", "All paths start with `/v1`.")
	for _, tc := range []struct {
		name  string
		rows  []*catalog.SpecRow
		field string
		want  string
	}{
		{"the row naming the field", []*catalog.SpecRow{path, stop, text}, "stop_reason", " (spec 2.4/stop-reason)"},
		{"a field inside a path", []*catalog.SpecRow{path, stop, text}, "text", " (spec 2.4/content-text)"},
		{"no row names it: every row", []*catalog.SpecRow{path, bound}, "output_tokens", " (spec intro/paths-v1, 8/max-tokens-256)"},
		{"no field: every row", []*catalog.SpecRow{stop, bound}, "", " (spec 2.4/stop-reason, 8/max-tokens-256)"},
		{"many rows: their sections", []*catalog.SpecRow{path, stop, text, bound}, "", " (spec intro, 2.4, 8)"},
		{"no rows", nil, "model", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &checker{rows: tc.rows}
			assert.Equal(t, tc.want, c.cite(tc.field))
		})
	}
	assert.Equal(t, "stop_reason", fieldOf("message_delta stop_reason"))
	assert.Equal(t, "finish_reason", fieldOf("choices.0.finish_reason"))
	assert.Equal(t, "text", fieldOf(`content.#(type=="text").text`))
	assert.Equal(t, "created", fieldOf("created"))
}
