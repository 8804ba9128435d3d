package catalog

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	settingScalars = []string{"base_url", "concurrency", "timeout"}
	settingLists   = []string{"model_map"}
	settingGroups  = map[string][]string{"headers": {"all", "text", "image"}}
)

func TestReadSettings(t *testing.T) {
	for _, tc := range []struct {
		name string
		yaml string
		want map[string]SettingsEntry
		errs string
	}{
		{name: "empty file", yaml: "", want: map[string]SettingsEntry{}},
		{name: "scalars and a group", yaml: "base_url: https://gw.test\nconcurrency: 3\nheaders:\n  all: ['X-Team: core']\n  text: 'X-Route: text'\n",
			want: map[string]SettingsEntry{
				"base_url":     {Text: "https://gw.test", At: "g.yaml:1:11"},
				"concurrency":  {Text: "3", At: "g.yaml:2:14"},
				"headers.all":  {Lines: []string{"X-Team: core"}, At: "g.yaml:4:8"},
				"headers.text": {Lines: []string{"X-Route: text"}, At: "g.yaml:5:9"},
			}},
		{name: "an unknown setting, with a did-you-mean", yaml: "concurency: 3\n", errs: `g.yaml:1:1: unknown setting "concurency"; did you mean "concurrency"?`},
		{name: "an unknown group key", yaml: "headers:\n  texts: [a]\n", errs: `g.yaml:2:3: unknown key "texts" in headers; known keys: all, text, image; did you mean "text"?`},
		{name: "a list where one value belongs", yaml: "timeout: [1s, 2s]\n", errs: "g.yaml:1:10: timeout: expected a single value, got a list"},
		{name: "a list setting takes a list or one value", yaml: "model_map: [gen=gpt, 'gen-5.5=p,gpt-5.5']\n",
			want: map[string]SettingsEntry{"model_map": {Lines: []string{"gen=gpt", "gen-5.5=p,gpt-5.5"}, At: "g.yaml:1:12"}}},
		{name: "a list setting as one value", yaml: "model_map: gen=gpt,msg=claude\n",
			want: map[string]SettingsEntry{"model_map": {Lines: []string{"gen=gpt,msg=claude"}, At: "g.yaml:1:12"}}},
		{name: "a duplicate", yaml: "timeout: 1s\ntimeout: 2s\n", errs: `mapping key "timeout" already defined`},
		{name: "not a mapping", yaml: "- a\n", errs: "g.yaml:1:1: a settings file is a mapping of settings, got a list"},
		{name: "every problem at once", yaml: "concurency: 3\nheaders: 7\n",
			errs: "g.yaml:1:1: unknown setting \"concurency\"; did you mean \"concurrency\"?\ng.yaml:2:10: headers: expected a mapping of all, text, image, got an integer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadSettings("g.yaml", []byte(tc.yaml), settingScalars, settingLists, settingGroups)
			if tc.errs != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.errs)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

// FuzzReadSettings: any bytes give entries or diagnostics, never a panic,
// and every diagnostic names the file.
func FuzzReadSettings(f *testing.F) {
	for _, seed := range []string{"", "base_url: x\n", "headers:\n  all: [a, b]\n", "a: &x [1]\nb: *x\n", "<<: {timeout: 1s}\n", "{", "- - -"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := ReadSettings("f.yaml", data, settingScalars, settingLists, settingGroups)
		if ds, ok := err.(Diagnostics); ok {
			for _, d := range ds {
				if d.File != "f.yaml" || d.Line < 1 || d.Col < 1 {
					t.Fatalf("diagnostic without its place: %+v", d)
				}
			}
		}
	})
}
