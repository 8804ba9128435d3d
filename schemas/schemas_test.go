package schemas

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"regexp"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// wantNames is the contract with the case files: these names must exist.
var wantNames = []string{
	"chat_chunk", "chat_completion",
	"image_edit_completed", "image_edit_partial_image",
	"image_generation_completed", "image_generation_partial_image",
	"image_result", "message",
	"messages_content_block_delta", "messages_content_block_start", "messages_content_block_stop",
	"messages_message_delta", "messages_message_start", "messages_message_stop", "messages_ping",
	"model_list",
	"response",
	"responses_completed",
	"responses_event",
}

const uuid = "0f8fad5b-d9cb-469f-a165-70867728950e"

// schemaCase is, per schema: a minimal conforming instance, a rich one in
// the shape real gateways send (with extra fields), and faults with the
// violation path each must produce.
type schemaCase struct {
	minimal string
	rich    string
	faults  []fault
}

type fault struct {
	name string
	body string
	path string // expected Violation.Path
}

var cases = map[string]schemaCase{
	"response": {
		minimal: `{"object":"response","id":"resp_1","status":"completed","output":[]}`,
		rich: `{"object":"response","id":"resp_1","status":"completed","created_at":1,"model":"gen-5.5","x":{"y":1},
			"output":[{"type":"reasoning","summary":[]},{"type":"message","id":"m","role":"assistant","content":[{"type":"output_text","text":"Hi","annotations":[]}]}],
			"output_text":"Hi","usage":{"input_tokens":1,"output_tokens":1,"total_tokens":2}}`,
		faults: []fault{
			{"wrong object", `{"object":"chat.completion","id":"r","status":"completed","output":[]}`, "/object"},
			{"missing output", `{"object":"response","id":"r","status":"completed"}`, "/output"},
			{"item without type", `{"object":"response","id":"r","status":"completed","output":[{}]}`, "/output/0/type"},
			{"text not string", `{"object":"response","id":"r","status":"completed","output":[{"type":"message","content":[{"type":"output_text","text":1}]}]}`, "/output/0/content/0/text"},
		},
	},
	"responses_event": {
		minimal: `{"type":"response.in_progress"}`,
		rich:    `{"type":"response.output_text.delta","delta":"Hi","item_id":"m","output_index":0,"content_index":0,"sequence_number":4,"x":[1]}`,
		faults: []fault{
			{"missing type", `{"delta":"x"}`, "/type"},
			{"delta missing", `{"type":"response.output_text.delta"}`, "/delta"},
			{"delta not string", `{"type":"response.output_text.delta","delta":5}`, "/delta"},
		},
	},
	"responses_completed": {
		minimal: `{"type":"response.completed","response":{"object":"response","id":"r","status":"completed","output":[]}}`,
		rich:    `{"type":"response.completed","sequence_number":9,"response":{"object":"response","id":"r","status":"completed","output":[],"usage":{}}}`,
		faults: []fault{
			{"missing response", `{"type":"response.completed"}`, "/response"},
			{"bad response", `{"type":"response.completed","response":{"object":"response","id":"r","status":"completed"}}`, "/response/output"},
		},
	},
	"model_list": {
		minimal: `{"object":"list","data":[]}`,
		rich: `{"object":"list","data":[
			{"id":"gen-image-2","object":"model","owned_by":"system","created":1700000000,"permissions":[{"x":1}]},
			{"id":"gen-image-2.5-flare","object":"model","owned_by":"org"}],"has_more":false}`,
		faults: []fault{
			{"missing data", `{"object":"list"}`, "/data"},
			{"missing owned_by", `{"object":"list","data":[{"id":"a","object":"model"}]}`, "/data/0/owned_by"},
			{"wrong object value", `{"object":"lists","data":[]}`, "/object"},
			{"record object value", `{"object":"list","data":[{"id":"a","object":"engine","owned_by":"o"}]}`, "/data/0/object"},
			{"id not string", `{"object":"list","data":[{"id":7,"object":"model","owned_by":"o"}]}`, "/data/0/id"},
			{"data not array", `{"object":"list","data":{}}`, "/data"},
		},
	},
	"chat_completion": {
		minimal: `{"object":"chat.completion","model":"gen-5.5","choices":[]}`,
		rich: `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gen-5.5","system_fingerprint":null,
			"choices":[{"index":0,"message":{"role":"assistant","content":"Hello","refusal":null,"annotations":[]},"logprobs":null,"finish_reason":"stop"},
			           {"index":1,"message":{"role":"assistant","content":""},"finish_reason":"length"}],
			"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4,"prompt_tokens_details":{"cached_tokens":0}}}`,
		faults: []fault{
			{"missing model", `{"object":"chat.completion","choices":[]}`, "/model"},
			{"wrong object", `{"object":"chat.completion.chunk","model":"m","choices":[]}`, "/object"},
			{"content null", `{"object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":null},"finish_reason":"stop"}]}`, "/choices/0/message/content"},
			{"content array", `{"object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":[{"type":"text","text":"x"}]},"finish_reason":"stop"}]}`, "/choices/0/message/content"},
			{"role user", `{"object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"user","content":"x"},"finish_reason":"stop"}]}`, "/choices/0/message/role"},
			{"index string", `{"object":"chat.completion","model":"m","choices":[{"index":"0","message":{"role":"assistant","content":"x"},"finish_reason":"stop"}]}`, "/choices/0/index"},
			{"missing finish_reason", `{"object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"x"}}]}`, "/choices/0/finish_reason"},
			{"missing message", `{"object":"chat.completion","model":"m","choices":[{"index":0,"finish_reason":"stop"}]}`, "/choices/0/message"},
		},
	},
	"chat_chunk": {
		// A usage-only chunk without choices is legal (6.2 names choices
		// as where text is, not as a member of every chunk).
		minimal: `{"object":"chat.completion.chunk","usage":{"total_tokens":3}}`,
		rich: `{"id":"c1","object":"chat.completion.chunk","created":1,"model":"gen-5.5",
			"choices":[{"index":0,"delta":{"role":"assistant","content":"Hel","refusal":null},"logprobs":null,"finish_reason":null},
			           {"index":1,"delta":{}},{"index":2,"delta":{"content":null},"finish_reason":"stop"},
			           {"index":3,"content_filter_results":{}}],
			"usage":null}`,
		faults: []fault{
			{"choices object", `{"choices":{"delta":{"content":"x"}}}`, "/choices"},
			{"content number", `{"choices":[{"delta":{"content":5}}]}`, "/choices/0/delta/content"},
			{"delta string", `{"choices":[{"delta":"hi"}]}`, "/choices/0/delta"},
		},
	},
	"message": {
		minimal: `{"type":"message","role":"assistant","model":"msg-sonnet-5","content":[],"stop_reason":"end_turn",
			"usage":{"input_tokens":1,"output_tokens":1,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}`,
		rich: `{"id":"msg_1","type":"message","role":"assistant","model":"msg-opus-5","stop_sequence":null,
			"content":[{"type":"thinking","thinking":"...","signature":"s"},{"type":"text","text":"Hello","citations":null},{"type":"text","text":" world"},{"type":"tool_use","id":"t","name":"n","input":{}}],
			"stop_reason":"max_tokens",
			"usage":{"input_tokens":10,"output_tokens":1024,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"service_tier":"standard","server_tool_use":{"web_search_requests":0}}}`,
		faults: []fault{
			{"missing usage", `{"type":"message","role":"assistant","model":"m","content":[],"stop_reason":"end_turn"}`, "/usage"},
			{"missing cache_read", `{"type":"message","role":"assistant","model":"m","content":[],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1,"cache_creation_input_tokens":0}}`, "/usage/cache_read_input_tokens"},
			{"tokens string", `{"type":"message","role":"assistant","model":"m","content":[],"stop_reason":"end_turn","usage":{"input_tokens":"1","output_tokens":1,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}`, "/usage/input_tokens"},
			{"wrong type value", `{"type":"completion","role":"assistant","model":"m","content":[],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}`, "/type"},
			{"content string", `{"type":"message","role":"assistant","model":"m","content":"hi","stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}`, "/content"},
			{"text block without text", `{"type":"message","role":"assistant","model":"m","content":[{"type":"text"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}`, "/content/0/text"},
			{"text not string", `{"type":"message","role":"assistant","model":"m","content":[{"type":"text","text":["a"]}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}`, "/content/0/text"},
			{"stop_reason null", `{"type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"usage":{"input_tokens":1,"output_tokens":1,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}`, "/stop_reason"},
		},
	},
	// Messages events need no type: one without takes its kind from its
	// event: line (6.3 shows no payload field but delta.text).
	"messages_message_start": {
		minimal: `{}`,
		rich:    `{"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[],"model":"msg-haiku-4-5-20251001","stop_reason":null,"usage":{"input_tokens":3,"output_tokens":1}}}`,
		faults: []fault{
			{"other type", `{"type":"message_stop"}`, "/type"},
			{"type number", `{"type":1}`, "/type"},
		},
	},
	"messages_content_block_start": {
		minimal: `{"index":0}`,
		rich:    `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
		faults:  []fault{{"other type", `{"type":"content_block_stop"}`, "/type"}},
	},
	"messages_content_block_delta": {
		minimal: `{"delta":{"text":"Hi"}}`,
		rich:    `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi","extra":{"a":[1]}}}`,
		faults: []fault{
			{"other type", `{"type":"content_block_start","delta":{"text":"Hi"}}`, "/type"},
			{"missing delta", `{"type":"content_block_delta","text":"Hi"}`, "/delta"},
			{"text number", `{"type":"content_block_delta","delta":{"type":"text_delta","text":1}}`, "/delta/text"},
			{"text_delta without text", `{"type":"content_block_delta","delta":{"type":"text_delta","content":"Hi"}}`, "/delta/text"},
			{"untyped delta without text", `{"type":"content_block_delta","delta":{"content":"Hi"}}`, "/delta/text"},
			{"delta string", `{"type":"content_block_delta","delta":"Hi"}`, "/delta"},
		},
	},
	"messages_content_block_stop": {
		minimal: `{}`,
		rich:    `{"type":"content_block_stop","index":3}`,
		faults:  []fault{{"type null", `{"type":null}`, "/type"}},
	},
	"messages_message_delta": {
		minimal: `{}`,
		rich:    `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":15}}`,
		faults:  []fault{{"other type", `{"type":"message_start"}`, "/type"}},
	},
	"messages_message_stop": {
		minimal: `{}`,
		rich:    `{"type":"message_stop","amazon-bedrock-invocationMetrics":{"inputTokenCount":1}}`,
		faults:  []fault{{"other type", `{"type":"stop"}`, "/type"}},
	},
	"messages_ping": {
		minimal: `{}`,
		rich:    `{"type":"ping","ts":1}`,
		faults:  []fault{{"other type", `{"type":"pong"}`, "/type"}},
	},
	"image_result": {
		minimal: `{"created":1,"background":"opaque","data":[{"b64_json":"","generation_id":"` + uuid + `"}],"output_format":"png","quality":"low","size":"1024x1024",
			"usage":{"input_tokens":1,"input_tokens_details":{"image_tokens":0,"text_tokens":1},"output_tokens":2,"output_tokens_details":{"image_tokens":2,"text_tokens":0},"total_tokens":3}}`,
		rich: `{"created":1700000000,"background":"transparent","error":null,
			"data":[{"b64_json":"iVBORw0KGgo=","generation_id":"` + uuid + `","revised_prompt":"p"},{"b64_json":"AAAA","generation_id":"` + uuid + `"}],
			"output_format":"webp","quality":"xhigh","size":"1536x1024","output_compression":50,
			"usage":{"input_tokens":1,"input_tokens_details":{"image_tokens":0,"text_tokens":1,"cached_tokens":0},"output_tokens":2,"output_tokens_details":{"image_tokens":2,"text_tokens":0},"total_tokens":3,"cost":{"usd":0.01}}}`,
		faults: []fault{
			{"missing created", `{"background":"opaque","data":[{"b64_json":"","generation_id":"g"}],"output_format":"png","quality":"low","size":"1x1","usage":{"input_tokens":1,"input_tokens_details":{"image_tokens":0,"text_tokens":1},"output_tokens":2,"output_tokens_details":{"image_tokens":2,"text_tokens":0},"total_tokens":3}}`, "/created"},
			{"b64 not string", `{"created":1,"background":"opaque","data":[{"b64_json":5,"generation_id":"g"}],"output_format":"png","quality":"low","size":"1x1","usage":{"input_tokens":1,"input_tokens_details":{"image_tokens":0,"text_tokens":1},"output_tokens":2,"output_tokens_details":{"image_tokens":2,"text_tokens":0},"total_tokens":3}}`, "/data/0/b64_json"},
			{"missing generation_id", `{"created":1,"background":"opaque","data":[{"b64_json":""}],"output_format":"png","quality":"low","size":"1x1","usage":{"input_tokens":1,"input_tokens_details":{"image_tokens":0,"text_tokens":1},"output_tokens":2,"output_tokens_details":{"image_tokens":2,"text_tokens":0},"total_tokens":3}}`, "/data/0/generation_id"},
			{"created float", `{"created":1.5,"background":"opaque","data":[{"b64_json":"","generation_id":"g"}],"output_format":"png","quality":"low","size":"1x1","usage":{"input_tokens":1,"input_tokens_details":{"image_tokens":0,"text_tokens":1},"output_tokens":2,"output_tokens_details":{"image_tokens":2,"text_tokens":0},"total_tokens":3}}`, "/created"},
			{"empty data", `{"created":1,"background":"opaque","data":[],"output_format":"png","quality":"low","size":"1x1","usage":{"input_tokens":1,"input_tokens_details":{"image_tokens":0,"text_tokens":1},"output_tokens":2,"output_tokens_details":{"image_tokens":2,"text_tokens":0},"total_tokens":3}}`, "/data"},
			{"error field", `{"created":1,"background":"opaque","data":[{"b64_json":"","generation_id":"g"}],"output_format":"png","quality":"low","size":"1x1","error":{"message":"boom"},"usage":{"input_tokens":1,"input_tokens_details":{"image_tokens":0,"text_tokens":1},"output_tokens":2,"output_tokens_details":{"image_tokens":2,"text_tokens":0},"total_tokens":3}}`, "/error"},
			{"output_format gif", `{"created":1,"background":"opaque","data":[{"b64_json":"","generation_id":"g"}],"output_format":"gif","quality":"low","size":"1x1","usage":{"input_tokens":1,"input_tokens_details":{"image_tokens":0,"text_tokens":1},"output_tokens":2,"output_tokens_details":{"image_tokens":2,"text_tokens":0},"total_tokens":3}}`, "/output_format"},
			{"size auto", `{"created":1,"background":"opaque","data":[{"b64_json":"","generation_id":"g"}],"output_format":"png","quality":"low","size":"auto","usage":{"input_tokens":1,"input_tokens_details":{"image_tokens":0,"text_tokens":1},"output_tokens":2,"output_tokens_details":{"image_tokens":2,"text_tokens":0},"total_tokens":3}}`, "/size"},
			{"missing output text_tokens", `{"created":1,"background":"opaque","data":[{"b64_json":"","generation_id":"g"}],"output_format":"png","quality":"low","size":"1x1","usage":{"input_tokens":1,"input_tokens_details":{"image_tokens":0,"text_tokens":1},"output_tokens":2,"output_tokens_details":{"image_tokens":2},"total_tokens":3}}`, "/usage/output_tokens_details/text_tokens"},
			{"total string", `{"created":1,"background":"opaque","data":[{"b64_json":"","generation_id":"g"}],"output_format":"png","quality":"low","size":"1x1","usage":{"input_tokens":1,"input_tokens_details":{"image_tokens":0,"text_tokens":1},"output_tokens":2,"output_tokens_details":{"image_tokens":2,"text_tokens":0},"total_tokens":"3"}}`, "/usage/total_tokens"},
		},
	},
	"image_generation_partial_image": imagePartial("image_generation.partial_image", "image_edit.partial_image"),
	"image_edit_partial_image":       imagePartial("image_edit.partial_image", "image_generation.partial_image"),
	"image_generation_completed":     imageCompleted("image_generation.completed", "image_generation.partial_image"),
	"image_edit_completed":           imageCompleted("image_edit.completed", "image_generation.completed"),
}

func imagePartial(typ, other string) schemaCase {
	return schemaCase{
		minimal: `{"type":"` + typ + `","b64_json":"AAAA","partial_image_index":0}`,
		rich:    `{"type":"` + typ + `","b64_json":"AAAA","partial_image_index":2,"created_at":1,"size":"1024x1024","background":"opaque","output_format":"png","usage":{"x":{"y":1}}}`,
		faults: []fault{
			{"missing index", `{"type":"` + typ + `","b64_json":"AAAA"}`, "/partial_image_index"},
			{"index string", `{"type":"` + typ + `","b64_json":"AAAA","partial_image_index":"0"}`, "/partial_image_index"},
			{"missing b64", `{"type":"` + typ + `","partial_image_index":0}`, "/b64_json"},
			{"b64 null", `{"type":"` + typ + `","b64_json":null,"partial_image_index":0}`, "/b64_json"},
			{"other family", `{"type":"` + other + `","b64_json":"AAAA","partial_image_index":0}`, "/type"},
		},
	}
}

func imageCompleted(typ, other string) schemaCase {
	return schemaCase{
		minimal: `{"type":"` + typ + `","b64_json":"AAAA"}`,
		rich:    `{"type":"` + typ + `","b64_json":"AAAA","created_at":1,"size":"1024x1024","quality":"high","usage":{"total_tokens":3,"input_tokens_details":{"a":1}}}`,
		faults: []fault{
			{"missing b64", `{"type":"` + typ + `"}`, "/b64_json"},
			{"b64 array", `{"type":"` + typ + `","b64_json":["AAAA"]}`, "/b64_json"},
			{"missing type", `{"b64_json":"AAAA"}`, "/type"},
			{"other type", `{"type":"` + other + `","b64_json":"AAAA","partial_image_index":0}`, "/type"},
		},
	}
}

func loadSet(t testing.TB) *Set {
	t.Helper()
	s, err := Load(FS)
	require.NoError(t, err)
	return s
}

func TestNames(t *testing.T) {
	s := loadSet(t)
	names := s.Names()
	for _, n := range wantNames {
		assert.Contains(t, names, n)
	}
	assert.NotContains(t, names, "nope")
	assert.IsIncreasing(t, names)
	// Every API schema has test cases. (Other files, such as a report
	// schema, may be tested by their own package.)
	for _, n := range wantNames {
		_, ok := cases[n]
		assert.True(t, ok, "no test cases for schema %s", n)
	}
	assert.Len(t, cases, len(wantNames))
}

func TestSchemaMetadata(t *testing.T) {
	files, err := fs.Glob(FS, "*.json")
	require.NoError(t, err)
	section := regexp.MustCompile(`\b[1-9]\.[0-9]\b`)
	for _, f := range files {
		t.Run(f, func(t *testing.T) {
			raw, err := fs.ReadFile(FS, f)
			require.NoError(t, err)
			var doc map[string]any
			require.NoError(t, json.Unmarshal(raw, &doc))
			assert.Equal(t, "https://json-schema.org/draft/2020-12/schema", doc["$schema"])
			assert.Equal(t, baseURL+f, doc["$id"])
			assert.NotEmpty(t, doc["title"])
			desc, _ := doc["description"].(string)
			assert.Regexp(t, section, desc, "description must cite a spec section")
			assert.NotContains(t, string(raw), `"additionalProperties"`, "extra fields must stay allowed")
			assert.NotContains(t, string(raw), `"unevaluatedProperties"`, "extra fields must stay allowed")
		})
	}
}

func TestValid(t *testing.T) {
	s := loadSet(t)
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			for label, body := range map[string]string{"minimal": c.minimal, "rich": c.rich} {
				v, err := s.Validate(name, []byte(body))
				require.NoError(t, err, label)
				assert.Empty(t, v, label)
			}
			// Unknown fields injected into every object of both instances,
			// including objects inside arrays, must still pass.
			for _, body := range []string{c.minimal, c.rich} {
				extra := withExtras(t, body)
				v, err := s.Validate(name, extra)
				require.NoError(t, err)
				assert.Empty(t, v, string(extra))
			}
		})
	}
}

// withExtras adds an unknown field to every object in the document.
func withExtras(t *testing.T, body string) []byte {
	t.Helper()
	var doc any
	d := json.NewDecoder(strings.NewReader(body))
	d.UseNumber()
	require.NoError(t, d.Decode(&doc))
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for _, c := range v {
				walk(c)
			}
			v["x_gateway_extra"] = map[string]any{"nested": []any{1, "two", nil, map[string]any{"k": true}}}
		case []any:
			for _, c := range v {
				walk(c)
			}
		}
	}
	walk(doc)
	out, err := json.Marshal(doc)
	require.NoError(t, err)
	return out
}

func TestFaults(t *testing.T) {
	s := loadSet(t)
	for name, c := range cases {
		require.NotEmpty(t, c.faults, name)
		var sawMissing, sawType bool
		for _, f := range c.faults {
			if strings.HasPrefix(f.name, "missing") {
				sawMissing = true
			} else {
				sawType = true
			}
			t.Run(name+"/"+f.name, func(t *testing.T) {
				v, err := s.Validate(name, []byte(f.body))
				require.NoError(t, err)
				require.NotEmpty(t, v, "fault not detected")
				var paths []string
				for _, x := range v {
					paths = append(paths, x.Path)
					assert.NotEmpty(t, x.Message)
				}
				assert.Contains(t, paths, f.path, "violations: %v", v)
			})
		}
		// A chat chunk requires no member: 6.2 says where text is carried,
		// not that every chunk carries it (a usage-only chunk has none).
		// Nor does a messages event other than content_block_delta: its
		// kind may come from its event: line (6.3 shows no payload field
		// but delta.text).
		requiresNothing := name == "chat_chunk" || strings.HasPrefix(name, "messages_") && name != "messages_content_block_delta"
		assert.True(t, (sawMissing || requiresNothing) && sawType, "%s needs a missing-field and a wrong-type/value fault", name)
	}
}

func TestMessages(t *testing.T) {
	s := loadSet(t)
	v, err := s.Validate("model_list", []byte(`{"object":"lists","data":[{"id":"a","object":"model"}]}`))
	require.NoError(t, err)
	assert.Equal(t, []Violation{
		{Path: "/data/0/owned_by", Message: `missing required property "owned_by"`},
		{Path: "/object", Message: `value must be 'list', got "lists"`},
	}, v)
	assert.Equal(t, `/object: value must be 'list', got "lists"`, v[1].String())
	assert.Equal(t, "(root): x", Violation{Message: "x"}.String())

	v, err = s.Validate("chat_chunk", []byte(`[]`))
	require.NoError(t, err)
	assert.Equal(t, []Violation{{Path: "", Message: "got array, want object"}}, v)

	// A huge wrong value is cut short in the message.
	long := strings.Repeat("é", 500)
	v, err = s.Validate("model_list", []byte(`{"object":"`+long+`","data":[]}`))
	require.NoError(t, err)
	require.Len(t, v, 1)
	assert.Less(t, len(v[0].Message), 200)
	assert.Contains(t, v[0].Message, "… (1002 bytes)")
}

func TestValidateErrors(t *testing.T) {
	s := loadSet(t)
	_, err := s.Validate("nope", []byte(`{}`))
	assert.ErrorContains(t, err, `unknown schema "nope"`)
	for _, bad := range []string{``, `{`, `{"a":1} {"b":2}`, `data: {}`, `{"a":1}x`} {
		_, err = s.Validate("model_list", []byte(bad))
		assert.ErrorContains(t, err, "not JSON", bad)
	}
}

func TestNumbers(t *testing.T) {
	s := loadSet(t)
	// Draft 2020-12: 1.0 is an integer; big integers keep precision.
	body := `{"type":"image_edit.partial_image","b64_json":"A","partial_image_index":1.0}`
	v, err := s.Validate("image_edit_partial_image", []byte(body))
	require.NoError(t, err)
	assert.Empty(t, v)
	body = `{"type":"image_edit.partial_image","b64_json":"A","partial_image_index":12345678901234567890123}`
	v, err = s.Validate("image_edit_partial_image", []byte(body))
	require.NoError(t, err)
	assert.Empty(t, v)
}

func TestLoadErrors(t *testing.T) {
	good := `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object"}`
	tests := []struct {
		name  string
		files fstest.MapFS
		want  string
	}{
		{"empty", fstest.MapFS{}, "no *.json"},
		{"not json", fstest.MapFS{"a.json": {Data: []byte(good)}, "b.json": {Data: []byte(`{`)}}, "b.json"},
		{"bad keyword value", fstest.MapFS{"c.json": {Data: []byte(`{"type":"objekt"}`)}}, "c.json"},
		{"dangling ref", fstest.MapFS{"d.json": {Data: []byte(`{"$ref":"missing.json"}`)}}, "d.json"},
		{"remote ref refused", fstest.MapFS{"e.json": {Data: []byte(`{"$ref":"https://example.com/x.json"}`)}}, "e.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(tt.files)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestLoadCrossRefAndExtraFiles(t *testing.T) {
	// Room for later files (e.g. report.schema.json): every *.json compiles
	// and may reference another by file name; non-JSON files are ignored.
	fsys := fstest.MapFS{
		"report.schema.json": {Data: []byte(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"r":{"$ref":"result.json"}}}`)},
		"result.json":        {Data: []byte(`{"type":"object","required":["status"]}`)},
		"README.md":          {Data: []byte(`not a schema`)},
	}
	s, err := Load(fsys)
	require.NoError(t, err)
	assert.Equal(t, []string{"report.schema", "result"}, s.Names())
	v, err := s.Validate("report.schema", []byte(`{"r":{}}`))
	require.NoError(t, err)
	assert.Equal(t, []Violation{{Path: "/r/status", Message: `missing required property "status"`}}, v)
}

// TestConcurrent validates from many goroutines at once; run with -race.
func TestConcurrent(t *testing.T) {
	s := loadSet(t)
	type job struct {
		name, body string
		ok         bool
	}
	var jobs []job
	for name, c := range cases {
		jobs = append(jobs, job{name, c.minimal, true}, job{name, c.rich, true})
		for _, f := range c.faults {
			jobs = append(jobs, job{name, f.body, false})
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := 0; g < 32; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := range 20 {
				j := jobs[(g*7+i)%len(jobs)]
				v, err := s.Validate(j.name, []byte(j.body))
				if err != nil || (len(v) == 0) != j.ok {
					errs <- fmt.Errorf("%s %s: %v %v", j.name, j.body, v, err)
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func BenchmarkValidateImageResult(b *testing.B) {
	s := loadSet(b)
	body := []byte(cases["image_result"].rich)
	b.ReportAllocs()
	for b.Loop() {
		if v, err := s.Validate("image_result", body); err != nil || len(v) != 0 {
			b.Fatal(v, err)
		}
	}
}
