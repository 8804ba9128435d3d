package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLintSchema: lint also holds every case file to cases.schema.json, so
// a file the loader takes but the schema does not describe (a section
// written as a number, where the schema wants the string "4.2") is refused
// with the file, line:col and field.
func TestLintSchema(t *testing.T) {
	clearEnv(t)
	for _, tt := range []struct {
		name, spec string
		code       int
		stderr     string
	}{
		{"conforms", `"4.2"`, exitOK, ""},
		{"a number for a reference", `4.2`, exitNotStart, `schema\.yaml:5:11: schema: cases\[0\]\.spec: got number, want string`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, "schema.yaml"), []byte(`cases:
  - id: chat-a
    feature: chat.basic
    tier: verified
    spec: `+tt.spec+`
    key: text
    models: [gen-5.5]
    request: {method: POST, path: /v1/chat/completions, json: {model: "{{ .Model }}", messages: [{role: user, content: hi}]}}
    expect: {status: 200}
`), 0o644))
			code, _, stderr := gw(t, "lint", "--cases", dir)
			assert.Equal(t, tt.code, code, stderr)
			if tt.stderr == "" {
				assert.Empty(t, stderr)
			} else {
				assert.Regexp(t, tt.stderr, stderr)
			}
		})
	}
}
