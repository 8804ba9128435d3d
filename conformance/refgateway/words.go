package refgateway

import (
	"encoding/json"
	"hash/fnv"
	"regexp"
	"strconv"
	"strings"
)

// vocabulary holds the words of every generated answer. The gateway's text
// is deterministic, derived from the model and the prompt, so that tests can
// compare answers across runs.
var vocabulary = strings.Fields(`the a gateway answers every request with plain words drawn
from a fixed list so that tests can compare outputs across runs and models while the
text still reads like a sentence about light water stone river quiet bright morning
signal careful simple steady clear green blue amber field harbour window`)

var wantLength = regexp.MustCompile(`(?i)\b(\d{1,6})\s*(?:words?|tokens?)\b`)

// maxGenerated bounds the length a prompt may ask for.
const maxGenerated = 16384

// generate returns the words of a deterministic answer to prompt: a short
// echo of the prompt, then words picked by a hash of the prompt and model.
// A prompt naming "N words" (or tokens) gets N words; otherwise 24 to 40.
// prefix words come first (e.g. the image description of alt-flash).
func generate(modelID, prompt string, prefix []string) []string {
	h := fnv.New64a()
	h.Write([]byte(modelID + "\x00" + prompt))
	seed := h.Sum64()
	n := 24 + int(seed%17)
	if m := wantLength.FindStringSubmatch(prompt); m != nil {
		if v, err := strconv.Atoi(m[1]); err == nil && v > 0 {
			n = min(v, maxGenerated)
		}
	}
	words := append([]string(nil), prefix...)
	if pw := strings.Fields(prompt); len(pw) > 0 {
		words = append(words, "About")
		for _, w := range pw[:min(len(pw), 5)] {
			words = append(words, strings.Trim(w, `.,;:!?"'`))
		}
		words[len(words)-1] += ":"
	}
	x := seed | 1
	for len(words) < n {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		words = append(words, vocabulary[x%uint64(len(vocabulary))])
	}
	words = words[:max(n, len(prefix))]
	words[len(words)-1] = strings.TrimSuffix(words[len(words)-1], ":") + "."
	return words
}

// limitWords applies max_tokens, an upper bound on output length (4.2, 4.3;
// one word is one token). It reports whether the output reached the bound
// (and was cut to it).
func limitWords(words []string, maxTokens int) ([]string, bool) {
	if maxTokens > 0 && len(words) >= maxTokens {
		return words[:maxTokens], true
	}
	return words, false
}

// chunks splits words into stream fragments of a few words, each fragment
// carrying its leading space so that concatenation restores the text.
func chunks(words []string) []string {
	var out []string
	for i := 0; i < len(words); i += 3 {
		part := strings.Join(words[i:min(i+3, len(words))], " ")
		if i > 0 {
			part = " " + part
		}
		out = append(out, part)
	}
	return out
}

func countWords(s string) int { return len(strings.Fields(s)) }

// textOf reads a message content: a string, or an array of parts whose text
// parts are joined. ok is false for any other shape.
func textOf(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	var parts []map[string]any
	if json.Unmarshal(raw, &parts) != nil {
		return "", false
	}
	var texts []string
	for _, p := range parts {
		if t, _ := p["text"].(string); t != "" {
			texts = append(texts, t)
		}
	}
	return strings.Join(texts, " "), true
}
