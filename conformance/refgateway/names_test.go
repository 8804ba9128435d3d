package refgateway

import (
	"encoding/base64"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseModelNames(t *testing.T) {
	extras := []ExtraModel{{KindText, "gen-5.7"}, {KindImage, "house-image"}}
	for _, tc := range []struct {
		name    string
		values  []string
		want    map[string]string
		wantErr string
	}{
		{"none", nil, map[string]string{}, ""},
		{"one", []string{"gen-5.5=company-chat"}, map[string]string{"gen-5.5": "company-chat"}, ""},
		{"repeated, spaces trimmed", []string{" gen-5.5 = company-chat ", "msg-opus-5=openai/claude-opus"},
			map[string]string{"gen-5.5": "company-chat", "msg-opus-5": "openai/claude-opus"}, ""},
		{"extra models", []string{"gen-5.7=next-chat", "house-image=painter"}, map[string]string{"gen-5.7": "next-chat", "house-image": "painter"}, ""},
		{"a model under its own id", []string{"alt-flash=alt-flash"}, map[string]string{"alt-flash": "alt-flash"}, ""},
		{"no equals sign", []string{"gen-5.5"}, nil, "want SPEC=NAME"},
		{"no spec", []string{"=company-chat"}, nil, "want SPEC=NAME"},
		{"empty name", []string{"gen-5.5="}, nil, "the name is empty"},
		{"name with white space", []string{"gen-5.5=company chat"}, nil, "white space"},
		{"unknown spec: a typo", []string{"gen-5.55=x"}, nil, "gen-5.55 is not a model of the gateway (a spec id or an --extra-model); did you mean gen-5.5?"},
		{"unknown spec: a gateway's id", []string{"claude-sonnet-5=x"}, nil, "did you mean msg-sonnet-5?"},
		{"unknown spec: a path", []string{"openai/gpt-image-2=x"}, nil, "did you mean gen-image-2?"},
		{"unknown spec: nothing near", []string{"whisper-large=x"}, nil, "whisper-large is not a model of the gateway (a spec id or an --extra-model)"},
		{"retired spec", []string{"msg-sonnet-4-6=x"}, nil, "msg-sonnet-4-6 is not a model of the gateway"},
		{"spec twice", []string{"gen-5.5=a", "gen-5.5=b"}, nil, "gen-5.5 is renamed twice"},
		{"two specs, one name", []string{"gen-5.5=chat", "msg-opus-5=chat"}, nil, "chat is given to gen-5.5 too"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseModelNames(tc.values, extras)
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.wantErr)
				if !strings.Contains(tc.wantErr, "did you mean") {
					assert.NotContains(t, err.Error(), "did you mean", "a hint only where one is near")
				}
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestParseVendorWords(t *testing.T) {
	for _, tc := range []struct {
		name    string
		values  []string
		want    map[string]string
		wantErr string
	}{
		{"none", nil, map[string]string{}, ""},
		{"comma-separated", []string{"gen=gpt,msg=claude,alt=gemini"}, testVendorWords, ""},
		{"repeated", []string{"gen=gpt", "msg=claude", "alt=gemini"}, testVendorWords, ""},
		{"paths", []string{"gen=openai/gpt,msg=anthropic/claude"}, map[string]string{"gen": "openai/gpt", "msg": "anthropic/claude"}, ""},
		{"spaces and empty items", []string{" gen = gpt ,, "}, map[string]string{"gen": "gpt"}, ""},
		{"not a neutral word", []string{"gpt=openai"}, nil, `vendor word "gpt" is not one of gen, msg, alt`},
		{"no equals sign", []string{"gen"}, nil, "want WORD=NAME"},
		{"empty name", []string{"gen="}, nil, "the name is empty"},
		{"name with white space", []string{"gen=open ai"}, nil, "white space"},
		{"word twice in one value", []string{"gen=gpt,gen=openai/gpt"}, nil, "gen is given twice"},
		{"word twice across values", []string{"gen=gpt", "msg=claude,gen=o"}, nil, "gen is given twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseVendorWords(tc.values)
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

// TestNewRefusesModelNames: New checks a Config built by hand as the
// parsers check the flags, and refuses a list with two models of one name.
func TestNewRefusesModelNames(t *testing.T) {
	for _, tc := range []struct {
		name    string
		cfg     Config
		wantErr string
	}{
		{"unknown spec", Config{ModelNames: map[string]string{"gen-5.55": "x"}}, "did you mean gen-5.5?"},
		{"empty name", Config{ModelNames: map[string]string{"gen-5.5": ""}}, "the name is empty"},
		{"unknown word", Config{VendorWords: map[string]string{"img": "gpt"}}, `vendor word "img" is not one of gen, msg, alt`},
		{"renamed onto another model", Config{ModelNames: map[string]string{"gen-5.5": "gen-5.6-luna"}}, "gen-5.5 and gen-5.6-luna are both served as gen-5.6-luna"},
		{"an extra model in vendor form meets a renamed one", Config{VendorWords: map[string]string{"gen": "gpt"}, ExtraModels: []ExtraModel{{KindImage, "gpt-image-2"}}},
			"gen-image-2 and gpt-image-2 are both served as gpt-image-2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.cfg)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.wantErr)
		})
	}
}

// modelsNamed finds the model each part of an answer names: a chat
// completion, a message, a response, their streams' events.
var modelsNamed = regexp.MustCompile(`"model":"([^"]*)"`)

// TestServedNames: under a renaming every key lists the new names only;
// every endpoint serves a model by its new name, answers under it, and
// answers its spec id, and a retired id in either form, as unknown.
func TestServedNames(t *testing.T) {
	t.Parallel()
	extras := []ExtraModel{{KindText, "gen-5.7"}, {KindText, "gpt-5.8"}}
	for _, tc := range []struct {
		name  string
		cfg   Config
		lists map[string][]string // key kind → the list it gives, built-in models in spec order, then extras
	}{
		{"vendor words", Config{VendorWords: testVendorWords, ExtraModels: extras}, map[string][]string{
			KindText:     {"gpt-5.5", "gpt-5.6-luna", "gpt-5.6-sol", "gpt-5.6-terra", "gpt-6-astra", "gpt-5.7", "gpt-5.8"},
			KindMessages: {"claude-sonnet-5", "claude-opus-5", "claude-haiku-4-5-20251001"},
			KindImage:    {"gpt-image-2", "gpt-image-2.5-flare", "gpt-image-2.5-sunburst"},
			KindAlt:      {"gemini-flash", "gemini-v4-pro"},
		}},
		{"vendor paths", Config{VendorWords: map[string]string{"gen": "openai/gpt", "msg": "anthropic/claude", "alt": "google/gemini"}, ExtraModels: extras}, map[string][]string{
			KindText:     {"openai/gpt-5.5", "openai/gpt-5.6-luna", "openai/gpt-5.6-sol", "openai/gpt-5.6-terra", "openai/gpt-6-astra", "openai/gpt-5.7", "gpt-5.8"},
			KindMessages: {"anthropic/claude-sonnet-5", "anthropic/claude-opus-5", "anthropic/claude-haiku-4-5-20251001"},
			KindImage:    {"openai/gpt-image-2", "openai/gpt-image-2.5-flare", "openai/gpt-image-2.5-sunburst"},
			KindAlt:      {"google/gemini-flash", "google/gemini-v4-pro"},
		}},
		{"model names win over vendor words", Config{VendorWords: map[string]string{"gen": "gpt"},
			ModelNames: map[string]string{"gen-5.5": "company-chat", "msg-opus-5": "big-thinker", "gen-image-2": "painter"}}, map[string][]string{
			KindText:     {"company-chat", "gpt-5.6-luna", "gpt-5.6-sol", "gpt-5.6-terra", "gpt-6-astra"},
			KindMessages: {"msg-sonnet-5", "big-thinker", "msg-haiku-4-5-20251001"},
			KindImage:    {"painter", "gpt-image-2.5-flare", "gpt-image-2.5-sunburst"},
			KindAlt:      {"alt-flash", "alt-v4-pro"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, tc.cfg)
			keyOf := map[string]string{KindText: keys.Text, KindMessages: keys.Messages, KindImage: keys.Image, KindAlt: keys.Alt}
			for _, kind := range keyKinds {
				r := s.do(t, "GET", "/v1/models", keyOf[kind], nil)
				assert.Equal(t, tc.lists[kind], listedInOrder(t, r), "%s key", kind)
			}
			// Each built-in model, by its new name and by its spec id.
			for _, kind := range keyKinds {
				for i, spec := range builtinModels[kind] {
					name := tc.lists[kind][i]
					for _, req := range servingRequests(t, kind, name) {
						r := s.do(t, "POST", req.path, keyOf[kind], req.body)
						require.Equal(t, 200, r.status, "%s %s: %s", req.path, name, r.body)
						named := modelsNamed.FindAllStringSubmatch(string(r.body), -1)
						if kind != KindImage { // image results name no model
							assert.NotEmpty(t, named, "%s %s names no model", req.path, name)
						}
						for _, m := range named {
							assert.Equal(t, name, m[1], "%s %s", req.path, name)
						}
					}
					if name == spec {
						continue
					}
					for _, req := range servingRequests(t, kind, spec) {
						r := s.do(t, "POST", req.path, keyOf[kind], req.body)
						assert.Equal(t, 404, r.status, "%s %s", req.path, spec)
						assert.Contains(t, string(r.body), "does not exist", "%s %s", req.path, spec)
					}
				}
			}
			// A retired id is unknown in either form; an image request
			// without model is served by the default model, renamed.
			msgs := []any{map[string]any{"role": "user", "content": "hi"}}
			for _, retired := range []string{"msg-sonnet-4-6", s.model("msg-sonnet-4-6")} {
				r := s.do(t, "POST", "/v1/messages", keys.Messages, map[string]any{"model": retired, "max_tokens": 8, "messages": msgs})
				assert.Equal(t, 404, r.status, "%s: %s", retired, r.body)
			}
			r := s.do(t, "POST", "/v1/images/generations", keys.Image, map[string]any{"prompt": "a fox", "size": "1024x1024", "quality": "low"})
			assert.Equal(t, 200, r.status, "%s", r.body)
		})
	}
}

// listedInOrder is the ids of a model list answer, in its order.
func listedInOrder(t *testing.T, r resp) []string {
	t.Helper()
	require.Equal(t, 200, r.status, "%s", r.body)
	var ids []string
	data, _ := r.json(t)["data"].([]any)
	for _, d := range data {
		ids = append(ids, d.(map[string]any)["id"].(string))
	}
	return ids
}

// servingRequest is a valid request to an endpoint serving a model.
type servingRequest struct {
	path string
	body any
}

// servingRequests are valid requests naming model to every endpoint
// serving the models of key kind kind, JSON and stream.
func servingRequests(t *testing.T, kind, model string) []servingRequest {
	msgs := []any{map[string]any{"role": "user", "content": "Say hello"}}
	switch kind {
	case KindText:
		return []servingRequest{
			{"/v1/chat/completions", map[string]any{"model": model, "messages": msgs}},
			{"/v1/chat/completions", map[string]any{"model": model, "messages": msgs, "stream": true}},
			{"/v1/responses", map[string]any{"model": model, "input": "Say hello"}},
			{"/v1/responses", map[string]any{"model": model, "input": "Say hello", "stream": true}},
		}
	case KindMessages, KindAlt:
		return []servingRequest{
			{"/v1/messages", map[string]any{"model": model, "max_tokens": 16, "messages": msgs}},
			{"/v1/messages", map[string]any{"model": model, "max_tokens": 16, "messages": msgs, "stream": true}},
		}
	}
	a, _, _ := refs(t)
	return []servingRequest{
		{"/v1/images/generations", map[string]any{"model": model, "prompt": "a fox", "size": "1024x1024", "quality": "low"}},
		{"/v1/images/edits", map[string]any{"model": model, "prompt": "paint it", "size": "1024x1024", "quality": "low",
			"images": []any{map[string]any{"image_url": dataURL(a)}}}},
	}
}

// TestFaultsServeNames: a fault that names or picks a model does so among
// the names served, under a renaming as without one.
func TestFaultsServeNames(t *testing.T) {
	t.Parallel()
	s := sharedVendorWords(t)
	msgs := []any{map[string]any{"role": "user", "content": "Say hello"}}
	a, _, _ := refs(t)
	for _, tc := range []struct {
		fault     string
		path, key string
		body      any // nil for GET /v1/models
		status    int
		has       []string
		hasNot    []string
	}{
		{fModelOther, "/v1/chat/completions", keys.Text, map[string]any{"model": "gpt-5.5", "messages": msgs}, 200, []string{`"model":"gpt-5.6-luna"`}, nil},
		{fModelOther, "/v1/messages", keys.Alt, map[string]any{"model": "gemini-v4-pro", "max_tokens": 8, "messages": msgs}, 200, []string{`"model":"gemini-flash"`}, nil},
		{fStreamModelOther, "/v1/chat/completions", keys.Text, map[string]any{"model": "gpt-5.5", "messages": msgs, "stream": true}, 200, []string{`"model":"gpt-5.6-luna"`}, []string{`"model":"gpt-5.5"`}},
		{fStreamModelOther, "/v1/messages", keys.Messages, map[string]any{"model": "claude-sonnet-5", "max_tokens": 8, "messages": msgs, "stream": true}, 200, []string{`"model":"claude-opus-5"`}, nil},
		{fModelFixed, "/v1/messages", keys.Messages, map[string]any{"model": "claude-opus-5", "max_tokens": 8, "messages": msgs}, 200, []string{`"model":"claude-sonnet-5"`}, nil},
		{fModelDated, "/v1/chat/completions", keys.Text, map[string]any{"model": "gpt-5.5", "messages": msgs}, 200, []string{`"model":"gpt-5.5-20260501"`}, nil},
		{fListsIdentical, "/v1/models", keys.Image, nil, 200, []string{`"id":"gpt-5.5"`, `"id":"claude-sonnet-5"`, `"id":"gemini-flash"`, `"id":"gpt-image-2"`}, nil},
		{fModelMissing, "/v1/models", keys.Text, nil, 200, []string{`"id":"gpt-5.6-luna"`}, []string{`"id":"gpt-5.5"`}},
		{fVerifiedModel404, "/v1/chat/completions", keys.Text, map[string]any{"model": "gpt-5.5", "messages": msgs}, 404, []string{`gpt-5.5`}, nil},
		{fVerifiedModel404, "/v1/messages", keys.Alt, map[string]any{"model": "gemini-flash", "max_tokens": 8, "messages": msgs}, 404, []string{`gemini-flash`}, nil},
		{fVerifiedModel404, "/v1/images/generations", keys.Image, map[string]any{"model": "gpt-image-2", "prompt": "x", "size": "1024x1024", "quality": "low"}, 404, []string{`gpt-image-2`}, nil},
		{fVerifiedModel404, "/v1/chat/completions", keys.Text, map[string]any{"model": "gpt-5.6-luna", "messages": msgs}, 200, []string{`"model":"gpt-5.6-luna"`}, nil},
		// The spec id is unknown: the default model serves it.
		{fDefaultModel, "/v1/chat/completions", keys.Text, map[string]any{"model": "gen-5.6-luna", "messages": msgs}, 200, []string{`"model":"gpt-5.5"`}, nil},
		{fAcceptInvalid, "/v1/messages", keys.Alt, map[string]any{"max_tokens": 8, "messages": msgs}, 200, []string{`"model":"gemini-flash"`}, nil},
		{fMissingKeyServed, "/v1/models", "", nil, 200, []string{`"id":"gpt-5.5"`}, nil},
		// gen-image-2's rules, and their faults, apply to it renamed.
		{fEditDefaultImage2, "/v1/images/edits", keys.Image, map[string]any{"prompt": "x", "quality": "xhigh", "images": []any{map[string]any{"image_url": dataURL(a)}}}, 400, []string{`for gpt-image-2`}, nil},
		{fImage2QualityRefused, "/v1/images/edits", keys.Image, map[string]any{"model": "gpt-image-2", "prompt": "x", "quality": "low", "images": []any{map[string]any{"image_url": dataURL(a)}}}, 400, []string{`gpt-image-2 takes no quality parameter`}, nil},
		{fGenQualityAutoRefused, "/v1/images/generations", keys.Image, map[string]any{"model": "gpt-image-2", "prompt": "x", "size": "1024x1024", "quality": "auto"}, 400, []string{`for gpt-image-2`}, nil},
		{fQualityMaxRefused, "/v1/images/edits", keys.Image, map[string]any{"model": "gpt-image-2.5-flare", "prompt": "x", "quality": "max", "images": []any{map[string]any{"image_url": dataURL(a)}}}, 400, []string{`for gpt-image-2.5-flare`}, nil},
		{fAltImageRefused, "/v1/messages", keys.Alt, map[string]any{"model": "gemini-flash", "max_tokens": 8, "messages": []any{map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png", "data": base64.StdEncoding.EncodeToString(a)}},
		}}}}, 400, []string{`gemini-flash takes text content only`}, nil},
	} {
		t.Run(tc.fault, func(t *testing.T) {
			method := "POST"
			if tc.body == nil {
				method = "GET"
			}
			r := s.do(t, method, tc.path, tc.key, tc.body, withFault(tc.fault))
			require.Equal(t, tc.status, r.status, "%s", r.body)
			for _, want := range tc.has {
				assert.Contains(t, string(r.body), want)
			}
			for _, not := range tc.hasNot {
				assert.NotContains(t, string(r.body), not)
			}
		})
	}
}

// TestAnyVendorName: the stand-in serves each model under any id naming it
// in a vendor's words, the table's prefixes before it, and answers with
// the id sent; its list keeps the spec's ids, the retired model stays
// unknown in every spelling, and without AnyVendorName such an id is
// unknown.
func TestAnyVendorName(t *testing.T) {
	t.Parallel()
	keyOf := map[string]string{KindText: keys.Text, KindMessages: keys.Messages, KindImage: keys.Image, KindAlt: keys.Alt}
	for _, tc := range []struct {
		kind, id string
		served   bool
	}{
		{KindText, "gpt-5.5", true},
		{KindText, "openai/gpt-5.5", true},
		{KindText, "azure/openai/gpt-5.6-sol", true},
		{KindMessages, "claude-sonnet-5", true},
		{KindMessages, "anthropic/claude-opus-5", true},
		{KindMessages, "us.anthropic.claude-haiku-4-5-20251001", true},
		{KindMessages, "publishers/anthropic/models/claude-sonnet-5", true},
		{KindAlt, "gemini-flash", true},
		{KindImage, "gpt-image-2", true},
		{KindText, "gen-5.5", true},
		{KindMessages, "claude-sonnet-4-6", false},
		{KindText, "gpt-9", false},
		{KindText, "chatgpt-5.5", false},
		{KindText, "meta-llama/gpt-5.5", false},
		{KindMessages, "gpt-5.5", false}, // another family's model
	} {
		t.Run(tc.id, func(t *testing.T) {
			for _, anyName := range []bool{true, false} {
				s := newServer(t, Config{AnyVendorName: anyName})
				if anyName {
					assert.Equal(t, builtinModels[tc.kind], listedInOrder(t, s.do(t, "GET", "/v1/models", keyOf[tc.kind], nil)), "the list keeps the spec's ids")
				}
				for _, req := range servingRequests(t, tc.kind, tc.id) {
					r := s.do(t, "POST", req.path, keyOf[tc.kind], req.body)
					if !(anyName && tc.served) && tc.id != "gen-5.5" {
						assert.Equal(t, 404, r.status, "%s %s (any name %t): %s", req.path, tc.id, anyName, r.body)
						continue
					}
					require.Equal(t, 200, r.status, "%s %s (any name %t): %s", req.path, tc.id, anyName, r.body)
					for _, m := range modelsNamed.FindAllStringSubmatch(string(r.body), -1) {
						assert.Equal(t, tc.id, m[1], "answered with the id sent")
					}
				}
			}
		})
	}
}
