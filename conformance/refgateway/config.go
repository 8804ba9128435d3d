package refgateway

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"
)

// Keys holds the bearer key of each key kind. Each kind sees its own model list.
type Keys struct {
	Text     string // chat completions and Responses models
	Messages string // the three msg- models on /v1/messages
	Image    string // image generation and editing
	Alt      string // the alternative text model, on /v1/messages
}

// DefaultKeys returns the documented local keys (DESIGN.md): sk-local-text,
// sk-local-messages, sk-local-image, sk-local-alt.
func DefaultKeys() Keys {
	return Keys{
		Text:     "sk-local-text",
		Messages: "sk-local-messages",
		Image:    "sk-local-image",
		Alt:      "sk-local-alt",
	}
}

// Key kinds, as used by ExtraModel.Kind and --extra-model.
const (
	KindText     = "text"
	KindMessages = "messages"
	KindImage    = "image"
	KindAlt      = "alt"
)

// ExtraModel is a model the catalog does not know, listed for the key of
// Kind and served as that family serves its models.
type ExtraModel struct{ Kind, ID string }

// ParseExtraModel parses "KIND:ID" with KIND one of text, messages, image, alt.
func ParseExtraModel(s string) (ExtraModel, error) {
	kind, id, ok := strings.Cut(s, ":")
	kind, id = strings.TrimSpace(kind), strings.TrimSpace(id)
	if !ok || id == "" {
		return ExtraModel{}, fmt.Errorf("extra model %q: want KIND:ID", s)
	}
	switch kind {
	case KindText, KindMessages, KindImage, KindAlt:
	default:
		return ExtraModel{}, fmt.Errorf("extra model %q: kind %q is not one of text, messages, image, alt", s, kind)
	}
	if strings.ContainsAny(id, " \t\r\n") {
		return ExtraModel{}, fmt.Errorf("extra model %q: id contains white space", s)
	}
	return ExtraModel{Kind: kind, ID: id}, nil
}

// Range is a delay drawn uniformly from [Min, Max]. The zero Range is no delay.
type Range struct{ Min, Max time.Duration }

// draw picks a delay in the range.
func (r Range) draw() time.Duration {
	if r.Max <= r.Min {
		return r.Min
	}
	return r.Min + rand.N(r.Max-r.Min+1)
}

// Latency holds the artificial delay of each endpoint before it answers, and
// of Event between two stream events.
type Latency struct {
	Models            Range
	Chat              Range
	Messages          Range
	ImagesGenerations Range
	ImagesEdits       Range
	Responses         Range
	Event             Range
}

// ParseLatency parses "ENDPOINT=DURATION[,...]" where ENDPOINT is one of models,
// chat, messages, images.generations, images.edits, responses, event and
// DURATION is a Go duration ("250ms") or a range ("1s-3s"). An empty spec is no delay.
func ParseLatency(spec string) (Latency, error) {
	var l Latency
	if strings.TrimSpace(spec) == "" {
		return l, nil
	}
	for item := range strings.SplitSeq(spec, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, dur, ok := strings.Cut(item, "=")
		if !ok {
			return Latency{}, fmt.Errorf("latency %q: want ENDPOINT=DURATION", item)
		}
		r, err := parseRange(strings.TrimSpace(dur))
		if err != nil {
			return Latency{}, fmt.Errorf("latency %q: %w", item, err)
		}
		dst := l.delayOf(strings.TrimSpace(name))
		if dst == nil {
			return Latency{}, fmt.Errorf("latency %q: unknown endpoint %q (want models, chat, messages, images.generations, images.edits, responses or event)", item, name)
		}
		*dst = r
	}
	return l, nil
}

// delayOf points at the delay of an endpoint named as ParseLatency names
// it; nil for an unknown name.
func (l *Latency) delayOf(name string) *Range {
	switch name {
	case "models":
		return &l.Models
	case "chat":
		return &l.Chat
	case "messages":
		return &l.Messages
	case "images.generations":
		return &l.ImagesGenerations
	case "images.edits":
		return &l.ImagesEdits
	case "responses":
		return &l.Responses
	case "event":
		return &l.Event
	}
	return nil
}

func parseRange(s string) (Range, error) {
	// A negative duration never makes sense here, so "-" can only separate a range.
	lo, hi, isRange := strings.Cut(s, "-")
	min, err := time.ParseDuration(strings.TrimSpace(lo))
	if err != nil {
		return Range{}, err
	}
	max := min
	if isRange {
		if max, err = time.ParseDuration(strings.TrimSpace(hi)); err != nil {
			return Range{}, err
		}
	}
	if min < 0 || max < min {
		return Range{}, fmt.Errorf("bad range %q: want 0 <= MIN <= MAX", s)
	}
	return Range{Min: min, Max: max}, nil
}

// DefaultMaxBodyBytes is the request body limit when Config.MaxBodyBytes is 0:
// two 1024x1024 reference PNGs plus a mask as base64 JSON fit with room to spare.
const DefaultMaxBodyBytes int64 = 64 << 20

// Config configures a Gateway. The zero Config is usable once Keys is set;
// New fills empty keys with DefaultKeys.
type Config struct {
	Keys         Keys
	Latency      Latency
	Faults       []string     // active on every request (see Faults)
	ExtraModels  []ExtraModel // listed and served as their family does
	HTTPClient   *http.Client // fetches HTTPS image references; nil → a client with a 30 s timeout
	MaxBodyBytes int64        // 0 → DefaultMaxBodyBytes
	// RateLimit limits the requests of each key: a token bucket per key and
	// class (see RateLimit, ParseRateLimit), over which a request gets 429
	// with Retry-After. The zero value means no limit.
	RateLimit RateLimit
	// ModelNames serves models under other names, as a real gateway names
	// them: spec id (or extra model id) → the name it is listed, requested
	// and answered under instead; the id itself is then unknown. See
	// ParseModelNames. It wins over VendorWords for its models.
	ModelNames map[string]string
	// VendorWords serves every model whose id starts with a neutral word
	// (gen, msg, alt) and a dash under another word or path: gen → gpt
	// serves gen-5.5 as gpt-5.5, gen → openai/gpt as openai/gpt-5.5. See
	// ParseVendorWords.
	VendorWords map[string]string
	// AnyVendorName also serves each model under any id that names it in
	// a vendor's words (gpt-5.5, openai/gpt-5.5, claude-sonnet-5,
	// gemini-flash: the vendor table's words and prefixes), answering with
	// the id sent: the stand-in of serve --judge, which client code reaches
	// with the names it sends its real gateway. The model list is unchanged,
	// and the retired model stays unknown in every spelling.
	AnyVendorName bool
}
