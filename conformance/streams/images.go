package streams

import (
	"fmt"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/sse"
)

// Images checks an image stream (spec 6.1): previews <family>.partial_image
// with partial_image_index, then <family>.completed events carrying b64_json.
type Images struct {
	family      string
	other       string
	maxPreviews int
	n           int

	previews  int
	lastIndex int64
	completed int // completed events seen
	events    int
	errored   bool // an error arrived: it is the reason no image follows
	once      once
}

// NewImages returns the grammar of an image stream. family is
// "image_generation" or "image_edit"; maxPreviews is the partial_images
// requested; n the number of final images expected (values < 1 mean 1).
//
// The preview cap is maxPreviews per final image: with n 1 (every verified
// stream) that is maxPreviews; how a gateway spreads previews over several
// images is not shown, so n > 1 is given room rather than a false alarm.
func NewImages(family catalog.Protocol, maxPreviews, n int) *Images {
	other := catalog.ProtocolImageEdit
	if family == catalog.ProtocolImageEdit {
		other = catalog.ProtocolImageGeneration
	}
	return &Images{family: string(family), other: string(other), maxPreviews: max(maxPreviews, 0), n: max(n, 1),
		lastIndex: -1, once: once{}}
}

func (g *Images) Text() string { return "" }

func (g *Images) Observe(n int, ev sse.Event) []Violation {
	g.events = n
	doc, typ, vs := typedEvent("images", n, ev, g.namesKind, g.once)
	if typ == "" {
		return vs
	}
	if typ == "error" || strings.HasSuffix(typ, ".error") || (doc.Get("error").Exists() && doc.Get("error").Type != gjson.Null) {
		g.errored = true
		return append(vs, Violation{Event: n, Rule: RuleImgErrorEvent, Message: "the stream carries an error",
			Expected: "no error event", Actual: snippet(ev.Data)})
	}
	// Strict: the official OpenAI SDKs' image stream reader (openai-go's
	// ssestream, which decodes image_generation.* and image_edit.* events)
	// ends the stream with an error on any event with an error member,
	// null included, so the image after it never arrives.
	if doc.Get("error").Exists() && g.once.first(RuleImgErrorMember) {
		vs = append(vs, Violation{Event: n, Rule: RuleImgErrorMember, Strict: true,
			Message:  "an image event carries an error member (null): openai-go's image stream reader ends the stream with an error on any error member",
			Expected: "no error member", Actual: `"error":null`})
	}
	switch typ {
	case g.family + ".partial_image":
		return append(vs, g.preview(n, doc)...)
	case g.family + ".completed":
		return append(vs, g.complete(n, doc)...)
	}
	// Only the other family's preview and final events are the wrong
	// family's (6.1 names those); any other type is unknown, whatever its
	// prefix (image_generation.in_progress in an edit stream).
	if typ == g.other+".partial_image" || typ == g.other+".completed" {
		return append(vs, Violation{Event: n, Rule: RuleImgWrongFamily,
			Message:  "event of the other request family",
			Expected: g.family + ".* events", Actual: typ})
	}
	// Spec 6.1 names the preview and final events of each family and shows
	// no others; an event of some other type is ignored, as clients that
	// read the two they know do. Reported under strict only.
	if g.once.first(RuleImgUnknownEvent) {
		vs = append(vs, Violation{Event: n, Rule: RuleImgUnknownEvent, Strict: true, Message: "image stream event of a type spec 6.1 does not name",
			Expected: g.family + ".partial_image or " + g.family + ".completed", Actual: typ})
	}
	return vs
}

// namesKind says whether an event: line names a kind 6.1 shows (the
// preview or final event of either family): a type-less event so named is
// one of them lacking the type 6.1 uses. Any other type-less event (a
// relay's {"hb":1}) is of no kind 6.1 names, ignored as a messages stream
// ignores one.
func (g *Images) namesKind(name string) bool {
	for _, f := range []string{g.family, g.other} {
		if name == f+".partial_image" || name == f+".completed" {
			return true
		}
	}
	return false
}

func (g *Images) preview(n int, doc gjson.Result) []Violation {
	var vs []Violation
	g.previews++
	if g.completed >= g.n && g.once.first(RuleImgPreviewAfterDone) {
		vs = append(vs, Violation{Event: n, Rule: RuleImgPreviewAfterDone, Message: "a preview arrived after the completed image",
			Expected: "previews before " + g.family + ".completed", Actual: g.family + ".partial_image"})
	}
	if limit := g.maxPreviews * g.n; g.previews > limit && g.once.first(RuleImgTooManyPreviews) {
		vs = append(vs, Violation{Event: n, Rule: RuleImgTooManyPreviews, Message: "more previews than partial_images requested",
			Expected: fmt.Sprintf("at most %d", limit), Actual: fmt.Sprintf("preview %d", g.previews)})
	}
	if b := doc.Get("b64_json"); b.Type != gjson.String || b.Str == "" {
		vs = append(vs, Violation{Event: n, Rule: RuleImgB64Missing, Message: "preview without b64_json",
			Expected: "a non-empty b64_json string", Actual: describe(b)})
	}
	idx := doc.Get("partial_image_index")
	if idx.Type != gjson.Number || idx.Num != float64(idx.Int()) {
		return append(vs, Violation{Event: n, Rule: RuleImgIndexMissing, Message: "preview without an integer partial_image_index",
			Expected: "partial_image_index", Actual: describe(idx)})
	}
	// Strict: clients place previews by partial_image_index, counting from 0.
	// With n > 1 the count may restart at 0 for the next image.
	i := idx.Int()
	if i != g.lastIndex+1 && !(g.n > 1 && i == 0) && g.once.first(RuleImgPreviewIndexOrder) {
		vs = append(vs, Violation{Event: n, Rule: RuleImgPreviewIndexOrder, Strict: true,
			Message:  "partial_image_index does not rise from 0 by 1",
			Expected: fmt.Sprintf("partial_image_index %d", g.lastIndex+1), Actual: fmt.Sprintf("partial_image_index %d", i)})
	}
	g.lastIndex = i
	return vs
}

func (g *Images) complete(n int, doc gjson.Result) []Violation {
	var vs []Violation
	b := doc.Get("b64_json")
	if b.Type != gjson.String || b.Str == "" {
		vs = append(vs, Violation{Event: n, Rule: RuleImgB64Missing, Message: "completed event without b64_json",
			Expected: "a non-empty b64_json string", Actual: describe(b)})
	}
	g.completed++
	if g.completed == g.n+1 {
		vs = append(vs, Violation{Event: n, Rule: RuleImgCompletedCount, Message: "more completed events than images requested",
			Expected: fmt.Sprintf("%d completed", g.n), Actual: fmt.Sprintf("completed event %d", g.completed)})
	}
	return vs
}

func (g *Images) Finish(readErr error) []Violation {
	if vs, cut := readErrViolations(readErr); cut {
		return vs
	}
	switch c := g.completed; {
	case g.errored && c < g.n:
		return nil // the error event already says why
	case c == 0:
		return []Violation{{Rule: RuleImgCompletedMissing, Message: "no completed event: the image was never delivered",
			Expected: g.family + ".completed", Actual: "end of stream after " + plural(g.events, "event")}}
	case c < g.n:
		return []Violation{{Rule: RuleImgCompletedCount, Message: "fewer completed events than images requested",
			Expected: fmt.Sprintf("%d completed", g.n), Actual: fmt.Sprintf("%d completed", c)}}
	}
	return nil
}

func describe(r gjson.Result) string {
	if !r.Exists() {
		return "absent"
	}
	return snippet([]byte(r.Raw))
}
