package streams

import (
	"bytes"
	"testing"

	"github.com/gwconform/gwconform/conformance/sse"
)

// FuzzGrammars: no grammar panics on any stream, and every violation names
// a rule and an event number within the stream.
func FuzzGrammars(f *testing.F) {
	f.Add([]byte(stream(data(chatHello), data("[DONE]"))))
	f.Add([]byte(stream(msgEvents(msgStart, blockStart(0), blockDelta(0, "a"), blockStop(0), msgDelta, msgStopEv)...)))
	f.Add([]byte(stream(preview("image_edit", 0), completed("image_edit"))))
	f.Add([]byte(stream(named("x", `{"type":"content_block_delta","index":-1}`), data(`{"type":"image_edit.partial_image","partial_image_index":9.5}`))))
	f.Add([]byte(stream(msgEvents(untyped(`{"type":"gateway_hello"}`, msgStart, blockDelta(0, "a b"), blockDelta(0, "a b c"))...)...) + named("message_stop", `{"stop_reason":"end_turn"}`) + "\n"))
	f.Add([]byte(stream(data(chatHello) + "\n" + data(`{"id":"c1","choices":[{"index":"0"}]}`) + "\n" + data("[DONE]")))) // joined, a member of another type
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, g := range []Grammar{NewChat(), NewMessages(), NewImages("image_edit", 2, 1), NewImages("image_generation", 0, 2)} {
			n, vs := runAll(sse.NewReader(bytes.NewReader(in), 256), g)
			for _, v := range vs {
				if v.Rule == "" || v.Message == "" || v.Event < 0 || v.Event > n {
					t.Fatalf("bad violation %+v (events %d)", v, n)
				}
			}
			_ = g.Text()
		}
	})
}
