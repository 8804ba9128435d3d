package catalog

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// controlFile is a verified chat case, a strict one, and a negative that
// names the verified one as its control.
const controlFile = `feature_group: chat
cases:
  - id: chat-a
    feature: chat.basic
    tier: verified
    spec: "4.2"
    requirement: "r"
    key: text
    models: [gen-5.5, gen-5.6-luna]
    request:
      method: POST
      path: /v1/chat/completions
      json: {model: "{{ .Model }}", messages: [{role: user, content: hi}]}
    expect: {status: 200}
  - id: chat-s
    feature: chat.basic
    tier: strict
    why: because
    spec: "4.2"
    requirement: "r"
    key: text
    models: [gen-5.5]
    request:
      method: POST
      path: /v1/chat/completions
      json: {model: "{{ .Model }}", messages: [{role: user, content: hi}]}
    expect: {status: 200}
  - id: chat-no-model
    feature: chat.errors
    tier: negative
    spec: "4.2"
    requirement: "r"
    key: text
    models: [gen-5.5]
    control: chat-a
    request:
      method: POST
      path: /v1/chat/completions
      json: {messages: [{role: user, content: hi}]}
    expect: {status: 400}
`

func TestLoadControl(t *testing.T) {
	const f = "cases/chat.yaml:"
	tests := []struct {
		name     string
		old, new string
		extra    string // another file, model_additions
		want     string // "" loads
	}{
		{name: "a negative names a verified control on its path for its models"},
		{name: "a model added to both", extra: "model_additions:\n  - model: gen-9\n    cases: [chat-a, chat-no-model]\n"},
		{name: "a negative without control", old: "    control: chat-a\n",
			want: f + "28:5: a negative case needs control: the id of a verified case on the same path that sends this request without its defect"},
		{name: "an unknown control", old: "control: chat-a", new: "control: chat-b",
			want: f + `35:14: control: no case with id "chat-b"; did you mean "chat-a"?`},
		{name: "a control that is not verified", old: "control: chat-a", new: "control: chat-s",
			want: f + `35:14: control "chat-s" is a strict case: a control must be verified, a row the spec shows served`},
		{name: "a negative as its own control", old: "control: chat-a", new: "control: chat-no-model",
			want: f + `35:14: control "chat-no-model" is a negative case: a control must be verified, a row the spec shows served`},
		{name: "a control on another path", old: "      path: /v1/chat/completions\n      json: {model: \"{{ .Model }}\", messages: [{role: user, content: hi}]}\n    expect: {status: 200}\n  - id: chat-s",
			new:  "      path: /v1/messages\n      json: {model: \"{{ .Model }}\", max_tokens: 8, messages: [{role: user, content: hi}]}\n    expect: {status: 200}\n  - id: chat-s",
			want: f + `35:14: control "chat-a" sends POST /v1/messages, not POST /v1/chat/completions: a control is on the negative's endpoint`},
		{name: "a model the control does not list", old: "    models: [gen-5.5]\n    control", new: "    models: [gen-5.5, gen-6-astra]\n    control",
			want: f + `35:14: control "chat-a" does not list gen-6-astra: a control runs with each model of its negative (add them to its models or to its model_additions)`},
		{name: "a model added to the negative alone", extra: "model_additions:\n  - model: gen-9\n    cases: [chat-no-model]\n",
			want: f + `35:14: control "chat-a" does not list gen-9: a control runs with each model of its negative (add them to its models or to its model_additions)`},
		{name: "a control that expects no success", old: "    expect: {status: 200}\n  - id: chat-s", new: "    expect: {status: 404}\n  - id: chat-s",
			want: f + `35:14: control "chat-a" expects 404: a control is a request the spec shows served (a 2xx)`},
		{name: "a control on another tier", old: "    why: because\n", new: "    why: because\n    control: chat-a\n",
			want: f + `19:14: control: only a negative case names one (this one is strict)`},
		{name: "an empty control", old: "control: chat-a", new: `control: ""`,
			want: f + `35:14: control: empty; give the id of a verified case`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := controlFile
			if tt.old != "" {
				require.Equal(t, 1, strings.Count(src, tt.old), "fragment %q", tt.old)
				src = strings.Replace(src, tt.old, tt.new, 1)
			}
			fsys := fstest.MapFS{"chat.yaml": {Data: []byte(src)}}
			if tt.extra != "" {
				fsys["added.yaml"] = &fstest.MapFile{Data: []byte(tt.extra)}
			}
			cat, err := Load(fsys, fstest.MapFS{}, nil)
			if tt.want != "" {
				require.Error(t, err)
				assert.Equal(t, tt.want, err.Error())
				return
			}
			require.NoError(t, err)
			assert.Equal(t, "chat-a", cat.Case("chat-no-model").Control)
		})
	}
}
