// Package modelid holds the rules for how a gateway may spell a model: the
// spellings of "model used" (spec 2.3, 2.4) that the JSON and the stream
// checks accept alike, and how an id of a key's model list names a spec id
// whose neutral word (gen-, msg-, alt-) it replaces with its own (the spec's
// preamble: "use the identifiers the model list returns for your key").
// Which words stand for a neutral one, and which provider prefixes may
// stand before an id, is the table of cases/vendors, and nothing else.
package modelid

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/goccy/go-yaml"

	"github.com/gwconform/gwconform/cases/vendors"
)

// Spellings describes the spellings Same accepts, for the expected side of
// a reason.
const Spellings = "the id requested, optionally a provider prefix of the vendor table (openai/, azure/openai/, a Bedrock-style us.anthropic., bedrock/us.anthropic., publishers/google/models/) before it, a snapshot or version suffix (-MMDD, -YYYYMMDD, -YYYY-MM-DD, @YYYYMMDD, -v1:0, -latest, -001) after it, or without the suffix it was requested with; or the spec's model in a vendor's words"

// table is cases/vendors/vendors.yaml as this package reads it.
type table struct {
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

// vendorTable is the table, read once; embedded data that cannot be read
// is a bug of the build, found by the package's tests.
var vendorTable = mustReadTable(vendors.YAML)

func mustReadTable(data []byte) table {
	t, err := readTable(data)
	if err != nil {
		panic(err)
	}
	return t
}

// readTable reads the vendor table strictly: an unknown key or a neutral
// word without a vendor word is an error.
func readTable(data []byte) (table, error) {
	var t table
	if err := yaml.UnmarshalWithOptions(data, &t, yaml.DisallowUnknownField()); err != nil {
		return t, fmt.Errorf("cases/vendors/vendors.yaml: %w", err)
	}
	if len(t.Words) == 0 {
		return t, fmt.Errorf("cases/vendors/vendors.yaml: no words")
	}
	for _, w := range t.Words {
		if w.Neutral == "" || len(w.Vendor) == 0 {
			return t, fmt.Errorf("cases/vendors/vendors.yaml: the neutral word %q needs a vendor word", w.Neutral)
		}
	}
	return t, nil
}

// snapshot is a release date after the id: -MMDD, -YYYYMMDD, -YYYY-MM-DD or
// @YYYYMMDD. Month and day must be calendar-plausible, so a version number
// such as -2024 or -9999 is not read as a date.
const snapshot = `-(?:\d{4})?(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])|-\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])|@\d{4}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])`

// suffix is what may follow the id and still name it: a snapshot, then
// optionally Bedrock's version (-v1:0); or -latest; or a numbered stable
// version (-001, as Vertex numbers them; a leading zero, so -100 is no
// version of it but another model).
var suffix = regexp.MustCompile(`^(?:(?:` + snapshot + `)?(?:-v\d+(?::\d+)?)?|-latest|-0\d\d)$`)

// Same reports whether got names the model requested: the same id, or one
// of them is the other spelled with a provider prefix, a suffix of suffix,
// or both (gen-5.5 and openai/gen-5.5, msg-sonnet-5 and
// us.anthropic.msg-sonnet-5-v1:0, msg-haiku-4-5-20251001 and its undated
// alias msg-haiku-4-5). Any other id is another model; two different
// snapshots of one model are two models.
func Same(requested, got string) bool {
	if requested == "" || got == "" {
		return false
	}
	for _, r := range unprefixed(requested) {
		for _, g := range unprefixed(got) {
			rid, gid := atDate(r.id), atDate(g.id)
			if rid == gid || suffixed(gid, rid) || suffixed(rid, gid) {
				return true
			}
		}
	}
	return false
}

// suffixed reports whether id is core and a suffix.
func suffixed(id, core string) bool {
	rest, ok := strings.CutPrefix(id, core)
	return ok && rest != "" && suffix.MatchString(rest)
}

// prefixed is an id cut after a provider prefix ("" for none).
type prefixed struct{ prefix, id string }

// unprefixed is id as it is and without each provider prefix it may carry:
// us.anthropic.x is us.anthropic. before x and us. before anthropic.x.
func unprefixed(id string) []prefixed {
	out := []prefixed{{"", id}}
	for i := range len(id) - 1 {
		if (id[i] == '/' || id[i] == '.') && prefixOK(id[:i+1]) {
			out = append(out, prefixed{id[:i+1], id[i+1:]})
		}
	}
	return out
}

// prefixOK reports whether p may stand before an id: nothing, or the
// table's prefixes: provider segments, then optionally Bedrock's vendor in
// dots or Vertex's publishers/<publisher>/models/.
func prefixOK(p string) bool {
	if p == "" || bedrockOK(p) || publisherOK(p) {
		return true
	}
	for _, seg := range vendorTable.Prefixes.Paths {
		if rest, ok := strings.CutPrefix(p, seg+"/"); ok && prefixOK(rest) {
			return true
		}
	}
	return false
}

// bedrockOK reports whether p is Bedrock's vendor in dots, optionally after
// a cross-region prefix: anthropic., us.anthropic., us-gov.meta.
func bedrockOK(p string) bool {
	rest, ok := strings.CutSuffix(p, ".")
	if !ok {
		return false
	}
	region, vendor, both := strings.Cut(rest, ".")
	if !both {
		region, vendor = "", region
	}
	b := vendorTable.Prefixes.Bedrock
	return slices.Contains(b.Vendors, vendor) && (region == "" || slices.Contains(b.Regions, region))
}

// publisherOK reports whether p is Vertex AI's publishers/<publisher>/models/.
func publisherOK(p string) bool {
	rest, ok := strings.CutPrefix(p, "publishers/")
	pub, models, ok2 := strings.Cut(rest, "/")
	return ok && ok2 && models == "models/" && slices.Contains(vendorTable.Prefixes.Publishers, pub)
}

// NeutralWords are the words the spec's ids carry in place of a vendor's,
// in the table's order.
var NeutralWords = neutralWords()

func neutralWords() []string {
	var out []string
	for _, w := range vendorTable.Words {
		out = append(out, w.Neutral)
	}
	return out
}

// VendorWord is the first vendor word the table gives a neutral word (gpt
// for gen), as a hint shows it; the word itself when the table has none.
func VendorWord(neutral string) string {
	for _, w := range vendorTable.Words {
		if w.Neutral == neutral {
			return w.Vendor[0]
		}
	}
	return neutral
}

// VendorSpellings are the spec id with its neutral word replaced by each
// vendor word of the table (gpt-image-2 for gen-image-2): the names a user
// may give a spec model before any list was read (plan, show, waivers).
// None for an id without a neutral word.
func VendorSpellings(spec string) []string {
	neutral, _, ok := Neutral(spec)
	if !ok {
		return nil
	}
	var out []string
	for _, w := range vendorTable.Words {
		if w.Neutral == neutral {
			for _, v := range w.Vendor {
				out = append(out, Rename(spec, v))
			}
		}
	}
	return out
}

// standsFor reports whether word may stand in an id for the neutral word:
// the neutral word itself, or one of the table's vendor words for it.
func standsFor(word, neutral string) bool {
	if word == neutral {
		return true
	}
	for _, w := range vendorTable.Words {
		if w.Neutral == neutral {
			return slices.Contains(w.Vendor, word)
		}
	}
	return false
}

// atDate spells Vertex's snapshot as a dash does: claude-haiku-4-5@20251001
// is claude-haiku-4-5-20251001, the same snapshot.
func atDate(id string) string {
	if m := trailingAtDate.FindStringIndex(id); m != nil {
		return id[:m[0]] + "-" + id[m[0]+1:]
	}
	return id
}

var trailingAtDate = regexp.MustCompile(`@\d{4}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])$`)

// Neutral cuts a spec id into its neutral word and the rest: gen-image-2 is
// gen and image-2. ok is false for an id without one.
func Neutral(id string) (word, rest string, ok bool) {
	word, rest, ok = strings.Cut(id, "-")
	if !ok || rest == "" {
		return "", "", false
	}
	if !slices.Contains(NeutralWords, word) {
		return "", "", false
	}
	return word, rest, true
}

// Naming is how a listed id names a spec id.
type Naming struct {
	// Plain is true when nothing follows the id's rest (no snapshot or
	// version suffix): of several candidates, the plain ones are preferred.
	Plain bool
	// Word is what the listed id puts in place of the spec id's neutral
	// word, with the provider prefix before it (gpt, openai/gpt,
	// us.anthropic.claude) when the listed id is otherwise the spec id as
	// it is (Plain, and the whole rest): the same word names the spec's
	// ids that no list shows (a retired id). Empty otherwise.
	Word string
}

// Names reports whether listed names the spec id: the spec id with its
// neutral word replaced by a vendor word of the table or kept, in any
// spelling Same accepts (gpt-5.5, openai/gpt-5.5, gpt-5.5-2026-01-01 name
// gen-5.5; claude-haiku-4-5 and Vertex's claude-haiku-4-5@20251001 name
// msg-haiku-4-5-20251001). An id without a neutral word is named only by
// itself.
func Names(spec, listed string) (Naming, bool) {
	neutral, rest, ok := Neutral(spec)
	if !ok {
		return Naming{Plain: true}, spec == listed
	}
	for _, p := range unprefixed(listed) {
		w, after, ok := strings.Cut(p.id, "-")
		if !ok || !standsFor(w, neutral) {
			continue
		}
		after = atDate(after)
		if after == rest {
			return Naming{Plain: true, Word: p.prefix + w}, true
		}
		if suffixed(after, rest) {
			return Naming{}, true
		}
		if undated := snapshotFree(rest); undated != rest && after == undated {
			return Naming{}, true // the undated alias, not the id itself
		}
	}
	return Naming{}, false
}

// snapshotFree is id without a snapshot suffix at its end, if it has one.
func snapshotFree(id string) string {
	if m := trailingSnapshot.FindStringIndex(id); m != nil {
		return id[:m[0]]
	}
	return id
}

var trailingSnapshot = regexp.MustCompile(`(?:` + snapshot + `)$`)

// Rename gives a spec id the word a gateway uses in place of its neutral
// one (Naming.Word): msg-sonnet-4-6 with claude is claude-sonnet-4-6, with
// anthropic/claude anthropic/claude-sonnet-4-6. An id without a neutral
// word is returned as it is.
func Rename(spec, word string) string {
	if _, rest, ok := Neutral(spec); ok && word != "" {
		return word + "-" + rest
	}
	return spec
}
