package refgateway

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/goccy/go-yaml"

	"github.com/gwconform/gwconform/cases/vendors"
)

// Served names. The spec names its models with a neutral word in place of
// the vendor's name (gen-, msg-, alt-) and tells clients to use the ids the
// model list returns for their key (intro). Config.ModelNames and
// Config.VendorWords make the gateway list and answer under other names, as
// a real gateway does (gpt-5.5, openai/gpt-5.5, an alias): a model renamed
// is requested and answered by its new name only, and its spec id becomes
// unknown. What the model does is still chosen by its spec id.

// vendorTable is the vendor table (cases/vendors, data the engine reads
// too), read here with the gateway's own reader: it shares data with the
// engine, never code.
type vendorTable struct {
	Words []struct {
		Neutral string   `yaml:"neutral"`
		Vendor  []string `yaml:"vendor"`
	} `yaml:"words"`
	Prefixes struct {
		Paths   []string `yaml:"paths"`
		Bedrock struct {
			Regions []string `yaml:"regions"`
			Vendors []string `yaml:"vendors"`
		} `yaml:"bedrock"`
		Publishers []string `yaml:"publishers"`
	} `yaml:"prefixes"`
}

var vendorsRead = readVendorTable(vendors.YAML)

// neutralWords are the words the spec puts in place of a vendor's name.
var neutralWords = func() []string {
	var out []string
	for _, w := range vendorsRead.Words {
		out = append(out, w.Neutral)
	}
	return out
}()

func readVendorTable(data []byte) vendorTable {
	var t vendorTable
	if err := yaml.Unmarshal(data, &t); err != nil || len(t.Words) == 0 {
		panic(fmt.Sprintf("refgateway: the vendor table cannot be read: %v", err))
	}
	return t
}

// neutralID is the spec's id an id names in a vendor's words: its
// prefixes (provider paths, Bedrock's region and vendor, Vertex's
// publishers/P/models/) left out and its vendor word put back to the
// neutral one (openai/gpt-5.5 names gen-5.5); "" when it names none.
func (t vendorTable) neutralID(id string) string {
	for changed := true; changed; {
		changed = false
		for _, p := range t.Prefixes.Publishers {
			if rest, ok := strings.CutPrefix(id, "publishers/"+p+"/models/"); ok {
				id, changed = rest, true
			}
		}
		for _, p := range t.Prefixes.Paths {
			if rest, ok := strings.CutPrefix(id, p+"/"); ok {
				id, changed = rest, true
			}
		}
		for _, v := range t.Prefixes.Bedrock.Vendors {
			for _, r := range append([]string{""}, t.Prefixes.Bedrock.Regions...) {
				pre := v + "."
				if r != "" {
					pre = r + "." + pre
				}
				if rest, ok := strings.CutPrefix(id, pre); ok {
					id, changed = rest, true
				}
			}
		}
	}
	word, rest, ok := strings.Cut(id, "-")
	for _, w := range t.Words {
		if ok && slices.Contains(w.Vendor, word) {
			return w.Neutral + "-" + rest
		}
	}
	return ""
}

// servedName is the name under which cfg serves the model whose spec id (or
// extra model id) is id: its ModelNames entry, else id with its neutral
// word replaced as VendorWords says, else id itself.
func (cfg Config) servedName(id string) string {
	if name, ok := cfg.ModelNames[id]; ok {
		return name
	}
	word, rest, ok := strings.Cut(id, "-")
	if name, renamed := cfg.VendorWords[word]; ok && renamed {
		return name + "-" + rest
	}
	return id
}

// ParseModelNames parses the values of --model-name, each SPEC=NAME, into
// Config.ModelNames: SPEC is a model of the gateway (built in, or one of
// extras) and NAME what it is served as. A SPEC given twice, or two SPECs
// given one NAME, is an error.
func ParseModelNames(values []string, extras []ExtraModel) (map[string]string, error) {
	names := map[string]string{}
	for _, v := range values {
		spec, name, ok := strings.Cut(v, "=")
		spec, name = strings.TrimSpace(spec), strings.TrimSpace(name)
		if !ok || spec == "" {
			return nil, fmt.Errorf("model name %q: want SPEC=NAME, e.g. gen-5.5=company-chat", v)
		}
		if _, dup := names[spec]; dup {
			return nil, fmt.Errorf("model name %q: %s is renamed twice", v, spec)
		}
		names[spec] = name
	}
	return names, checkModelNames(names, extras)
}

// checkModelNames checks Config.ModelNames: each key a model of the gateway
// (built in, or one of extras), each name a name, and no two models given
// one name.
func checkModelNames(names map[string]string, extras []ExtraModel) error {
	var known []string
	for _, kind := range keyKinds {
		known = append(known, builtinModels[kind]...)
	}
	for _, em := range extras {
		known = append(known, em.ID)
	}
	renamedTo := map[string]string{} // name → the spec id given it
	for _, spec := range slices.Sorted(maps.Keys(names)) {
		name := names[spec]
		if !slices.Contains(known, spec) {
			return fmt.Errorf("model name %s=%s: %s is not a model of the gateway (a spec id or an --extra-model)%s", spec, name, spec, closestModel(spec, known))
		}
		if err := checkName(name); err != nil {
			return fmt.Errorf("model name %s=%s: %w", spec, name, err)
		}
		if other, dup := renamedTo[name]; dup {
			return fmt.Errorf("model name %s=%s: %s is given to %s too", spec, name, name, other)
		}
		renamedTo[name] = spec
	}
	return nil
}

// ParseVendorWords parses the values of --vendor-words, each
// WORD=NAME[,...], into Config.VendorWords: WORD is one of the spec's
// neutral words (gen, msg, alt) and NAME what replaces it, a word (gpt) or
// a path (openai/gpt). A WORD given twice is an error.
func ParseVendorWords(values []string) (map[string]string, error) {
	words := map[string]string{}
	for _, v := range values {
		for item := range strings.SplitSeq(v, ",") {
			item = strings.TrimSpace(item)
			if item == "" {
				continue
			}
			word, name, ok := strings.Cut(item, "=")
			word, name = strings.TrimSpace(word), strings.TrimSpace(name)
			if !ok {
				return nil, fmt.Errorf("vendor words %q: want WORD=NAME, e.g. gen=gpt", item)
			}
			if _, dup := words[word]; dup {
				return nil, fmt.Errorf("vendor words %q: %s is given twice", item, word)
			}
			words[word] = name
		}
	}
	return words, checkVendorWords(words)
}

// checkVendorWords checks Config.VendorWords: each key a neutral word, each
// value a name.
func checkVendorWords(words map[string]string) error {
	for _, word := range slices.Sorted(maps.Keys(words)) {
		if !slices.Contains(neutralWords, word) {
			return fmt.Errorf("vendor word %q is not one of %s", word, strings.Join(neutralWords, ", "))
		}
		if err := checkName(words[word]); err != nil {
			return fmt.Errorf("vendor word %s=%s: %w", word, words[word], err)
		}
	}
	return nil
}

// checkName refuses a name no model list could carry: empty, or with white
// space.
func checkName(name string) error {
	if name == "" {
		return fmt.Errorf("the name is empty")
	}
	if strings.ContainsAny(name, " \t\r\n") {
		return fmt.Errorf("the name %q contains white space", name)
	}
	return nil
}

// closestModel is "; did you mean X?" for the known model nearest to id, or
// "" when none is near. Models are compared without their vendor word, so
// that an id given in a gateway's form (claude-sonnet-5) finds the spec's
// (msg-sonnet-5). The engine has such a hint too, but the reference gateway
// imports nothing of the engine.
func closestModel(id string, known []string) string {
	tail := func(s string) string {
		s = s[strings.LastIndex(s, "/")+1:]
		if _, rest, ok := strings.Cut(s, "-"); ok {
			return rest
		}
		return s
	}
	best, bestDist := "", max(2, len(tail(id))/4)+1
	for _, k := range known {
		if d := editDistance(tail(id), tail(k)); d < bestDist {
			best, bestDist = k, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf("; did you mean %s?", best)
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
