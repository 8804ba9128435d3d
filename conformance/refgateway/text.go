package refgateway

import "encoding/json"

// What chat completions (4.2) and messages (4.3) share: the request as
// read from its messages, its acceptance, and the generated words.

// textRequest is a chat or messages request as its answer needs it, read
// from its messages in order.
type textRequest struct {
	model       model
	maxTokens   int // the bound on output length; 0 when none is set
	prompt      string
	prefix      []string // words the answer starts with (an alternative model's image description)
	inputTokens int
	images      int               // image blocks read so far (the alternative model takes one)
	contents    []json.RawMessage // each message's content, for the content hooks
}

// addMessage counts a message's text towards the input tokens (3 more for
// its role), keeps the last user text as the prompt and keeps the content
// for the content hooks.
func (t *textRequest) addMessage(role, text string, content json.RawMessage) {
	t.inputTokens += countWords(text) + 3
	if role == "user" {
		t.prompt = text
	}
	t.contents = append(t.contents, content)
}

// acceptText lets the content and params hooks refuse a valid chat or
// messages request, then accepts it. It reports false when a hook refused
// it and the request has been answered.
func (c *call) acceptText(t *textRequest, stream *bool, maxTokensSet, temperatureSet bool) bool {
	set := map[string]bool{"max_tokens": maxTokensSet, "temperature": temperatureSet}
	if err := c.vetText(t.model, stream, t.contents, set); err != nil {
		c.answerErr(err)
		return false
	}
	c.accept()
	return true
}

// generateText is the answer to t: its words, bounded by max_tokens (cut
// reports that the bound cut them), and the output tokens usage reports.
func (c *call) generateText(t *textRequest) (words []string, cut bool, outputTokens int) {
	words, cut = c.ans.limit(generate(t.model.Spec, t.prompt, t.prefix), t.maxTokens)
	return words, cut, c.ans.outputTokens(words, t.maxTokens)
}

// temperatureOutside reports whether temperature t is set outside [0, hi].
func temperatureOutside(t *float64, hi float64) bool {
	return t != nil && (*t < 0 || *t > hi)
}

// deref is the value p points at, or the zero value when p is nil.
func deref[T any](p *T) T {
	var v T
	if p != nil {
		v = *p
	}
	return v
}
