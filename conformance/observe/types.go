package observe

import (
	"fmt"
	"strconv"
	"strings"
)

// memberTypes are the types the spec's parameter tables give the members
// of a request (4.2–4.5), each with the row that gives it. A multipart
// form carries text: an integer there is its decimal text, a boolean
// true or false.
var memberTypes = []struct{ endpoint, member, typ, row string }{
	{endpointChat, "model", "string", "4.2/model"},
	{endpointChat, "messages", "messages", "4.2/messages"},
	{endpointChat, "stream", "boolean", "4.2/stream-true"},
	{endpointChat, "temperature", "number", "4.2/temperature"},
	{endpointChat, "max_tokens", "integer", "4.2/max-tokens"},
	{endpointMessages, "model", "string", "4.3/model"},
	{endpointMessages, "max_tokens", "integer", "4.3/max-tokens-supplied"},
	{endpointMessages, "messages", "messages", "4.3/messages"},
	{endpointMessages, "stream", "boolean", "4.3/stream-true"},
	{endpointGenerations, "model", "string", "4.4/model"},
	{endpointGenerations, "prompt", "string", "4.4/prompt"},
	{endpointGenerations, "n", "integer", "4.4/n-default"},
	{endpointGenerations, "size", "string", "4.4/size"},
	{endpointGenerations, "quality", "string", "4.4/quality"},
	{endpointGenerations, "output_format", "string", "4.4/output-format"},
	{endpointGenerations, "stream", "boolean", "4.4/stream"},
	{endpointGenerations, "partial_images", "integer", "4.4/partial-images"},
	{endpointEdits, "images", "array of objects", "4.5/json-images"},
	{endpointEdits, "mask", "object", "4.5/json-mask"},
	{endpointEdits, "model", "string", "4.5/model"},
	{endpointEdits, "prompt", "string", "4.5/prompt-omitted"},
	{endpointEdits, "n", "integer", "4.5/n"},
	{endpointEdits, "size", "string", "4.5/size"},
	{endpointEdits, "quality", "string", "4.5/quality"},
	{endpointEdits, "background", "string", "4.5/background-transparent"},
	{endpointEdits, "output_format", "string", "4.5/output-format"},
	{endpointEdits, "output_compression", "integer", "4.5/compression-jpeg"},
	{endpointEdits, "stream", "boolean", "4.5/stream"},
	{endpointEdits, "partial_images", "integer", "4.5/partial-images"},
}

// typeRules are memberTypes as client rules, after the rule table's own.
func typeRules() []rule {
	var out []rule
	for _, m := range memberTypes {
		out = append(out, rule{row: m.row, on: []string{m.endpoint}, member: m.member, broken: func(q *Request) []breach {
			v, ok := q.param(m.member)
			if !ok || v == nil || hasType(v, m.typ, q.Multipart()) || q.Multipart() && jsonOnly[m.typ] {
				return nil // a JSON member sent as a form field is noted (4.5 rule 3), not typed
			}
			return []breach{{m.member, typeSaid[m.typ], fmt.Sprintf("%s %s", typeOf(v, q.Multipart()), shortValue(v))}}
		}})
	}
	return out
}

// jsonOnly are the types a form field's text cannot have: the members of
// the JSON encoding alone.
var jsonOnly = map[string]bool{"object": true, "array of objects": true, "messages": true}

// typeSaid is each type of memberTypes as a finding says it.
var typeSaid = map[string]string{
	"string": "a string", "boolean": "a boolean", "number": "a number", "integer": "an integer", "object": "an object",
	"array of objects": "an array of objects", "messages": "an array of objects, each with role and content",
}

// hasType reports whether a member's value is of the type the spec gives
// it; messages is an array of objects each with role and content.
func hasType(v any, typ string, multipart bool) bool {
	if multipart {
		s, _ := v.(string)
		switch typ {
		case "integer":
			_, ok := integer(s)
			return ok
		case "boolean":
			return s == "true" || s == "false"
		case "number":
			_, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			return err == nil
		}
		return typ == "string"
	}
	switch typ {
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "number":
		_, ok := v.(float64)
		return ok
	case "integer":
		_, isNum := v.(float64)
		_, ok := integer(v)
		return isNum && ok
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array of objects":
		items, ok := v.([]any)
		for _, it := range items {
			if _, obj := it.(map[string]any); !obj {
				return false
			}
		}
		return ok
	case "messages":
		items, ok := v.([]any)
		for _, it := range items {
			m, obj := it.(map[string]any)
			if !obj || m["role"] == nil || m["content"] == nil {
				return false
			}
		}
		return ok
	}
	return false
}

// typeOf names a value's JSON type, for a finding.
func typeOf(v any, multipart bool) string {
	if multipart {
		return "text"
	}
	switch v.(type) {
	case string:
		return "string"
	case bool:
		return "boolean"
	case float64:
		return "number"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	}
	return "value"
}
