package streams

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestResponses(t *testing.T) {
	created := data(`{"type":"response.created","response":{"object":"response","id":"r","status":"in_progress","output":[]}}`)
	delta := func(s string) string { return data(`{"type":"response.output_text.delta","delta":"` + s + `"}`) }
	completed := data(`{"type":"response.completed","response":{"object":"response","id":"r","status":"completed","output":[]}}`)
	runCases(t, []streamCase{
		{name: "valid", text: stream(created, delta("Hi"), delta(" there"), completed)},
		{name: "named events and unknown types", text: stream(named("response.created", `{"type":"response.created"}`),
			named("response.output_item.added", `{"type":"response.output_item.added"}`), completed)},
		{name: "no completed", text: stream(created, delta("Hi")), rules: []string{RuleRespNoCompleted}},
		{name: "not created first", text: stream(delta("Hi"), completed), rules: []string{RuleRespCreatedFirst}, event: []int{1}},
		{name: "failed", text: stream(created, data(`{"type":"response.failed"}`), completed), rules: []string{RuleRespFailed}},
		{name: "event after completed", text: stream(created, completed, delta("x")), rules: []string{RuleRespAfterDone}, event: []int{3}},
		{name: "not json", text: stream(created, data("nope"), completed), rules: []string{RuleRespNotJSON}},
		{name: "cut", text: stream(created, delta("Hi")) + "data: {\"type\"", rules: []string{RuleIncomplete}},
	}, func() Grammar { return NewResponses() })

	g := NewResponses()
	check(t, g, stream(created, delta("Hi"), delta(" there"), completed), 0)
	assert.Equal(t, "Hi there", g.Text())
}

func TestTextIsBounded(t *testing.T) {
	var b textBuf
	chunk := string(make([]byte, 4096))
	for range 2 * maxText / len(chunk) {
		b.WriteString(chunk)
	}
	assert.Len(t, b.String(), maxText)
}
