package conformance_test

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance"
)

// --model-map reads alike from the flag (repeated), GWCONFORM_MODEL_MAP
// and model_map: (a string or a YAML list): a comma splits only before a
// piece holding "=", so an id may hold commas, and the word form maps a
// neutral word.
func TestModelMapFromEverySource(t *testing.T) {
	want := map[string]string{"gen-5.5": "openrouter,openai/gpt-5.5", "msg": "claude", "alt": "gemini"}
	for _, tt := range []struct {
		name string
		args []string
		env  string
		file string
	}{
		{name: "the flag, repeated", args: []string{"--model-map", "gen-5.5=openrouter,openai/gpt-5.5,msg=claude", "--model-map", "alt=gemini"}},
		{name: "the variable", env: "gen-5.5=openrouter,openai/gpt-5.5,msg=claude,alt=gemini"},
		{name: "the file, one string", file: "model_map: gen-5.5=openrouter,openai/gpt-5.5,msg=claude,alt=gemini\n"},
		{name: "the file, a list", file: "model_map:\n  - gen-5.5=openrouter,openai/gpt-5.5\n  - msg=claude\n  - alt=gemini\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			t.Setenv("GWCONFORM_MODEL_MAP", tt.env) // empty: not set
			if tt.file != "" {
				require.NoError(t, os.WriteFile(filepath.Join(".", "gwconform.yaml"), []byte(tt.file), 0o644))
			}
			fs := flag.NewFlagSet("gwconform run", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			s := conformance.NewSettings(fs, "config", "model-map")
			require.NoError(t, s.Parse(tt.args))
			target, err := s.Target()
			require.NoError(t, err)
			assert.Equal(t, want, target.Names.Given)
		})
	}
}
