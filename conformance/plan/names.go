package plan

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/modelid"
	"github.com/gwconform/gwconform/conformance/vocab"
)

// The catalog speaks the spec's ids, whose neutral word (gen-, msg-, alt-)
// stands for a vendor's; a gateway lists the same models under its own
// names (the spec's preamble: "use the identifiers the model list returns
// for your key"). ModelNames holds which name each spec id is sent as, and
// how it was found: given (--model-map), or read from the key's own list.

// NameSource is how a spec id came to the name it is sent as.
type NameSource string

const (
	NameListed   NameSource = "listed"   // the key's list names the spec id itself
	NameResolved NameSource = "resolved" // one id of the key's list names it in other words
	NameGiven    NameSource = "given"    // --model-map
	// NameUnlisted: the key's list names it in no way; its calls that send
	// it are skipped (vocab.CheckNotListed).
	NameUnlisted NameSource = "unlisted"
	// NameAmbiguous: several ids of the key's list name it; the run does
	// not start while the selection uses it (ModelNames.Ambiguities).
	NameAmbiguous NameSource = "ambiguous"
	// NameUnread: the key's list could not be read; nothing is sent under
	// a guessed id: its calls are skipped (vocab.CheckListUnread).
	NameUnread NameSource = "unread"
)

// ModelName is what became of one spec id.
type ModelName struct {
	Spec string `json:"spec"`
	// Gateway is the id sent; empty when unlisted or ambiguous.
	Gateway string          `json:"gateway,omitempty"`
	Key     catalog.KeyKind `json:"key"`
	Source  NameSource      `json:"source"`
	// Candidates are the listed ids that name it, when ambiguous.
	Candidates []string `json:"candidates,omitempty"`
	// Unlisted is true for a given name the key's list does not name: it
	// is sent anyway (spec 1: a list does not prove what is served, and an
	// alias may be served unlisted).
	Unlisted bool `json:"unlisted,omitempty"`
	// Why is what the key's list answered, when it could not be read
	// (unread, or given over the unread list).
	Why string `json:"why,omitempty"`
	// Listed are the first ids of the key's list (maxListed), and
	// ListedCount how many it holds, kept for an unlisted spec id only: the
	// note that skips it shows what the gateway calls its models.
	Listed      []string `json:"listed,omitempty"`
	ListedCount int      `json:"listed_count,omitempty"`
}

// ModelNames maps the spec's ids to the gateway's. The zero value sends
// every id as it is. The manifest and a recording keep it whole, so a
// resume, a re-run or a replay sends what the run sent.
type ModelNames struct {
	// Given is --model-map: spec id → the gateway's id. It wins over the
	// lists.
	Given map[string]string `json:"given,omitempty"`
	// Entries are each catalog model's name once the lists were read
	// (ResolveNames), by spec id.
	Entries map[string]ModelName `json:"entries,omitempty"`
	// Words are, per key kind, the word its list puts in place of each
	// neutral one (msg → claude, or anthropic/claude), learned from the
	// ids it resolved: the spec's ids no list shows (a retired id) are sent
	// with it, so the 404 they earn is the one the spec means.
	Words map[catalog.KeyKind]map[string]string `json:"words,omitempty"`
}

// KeyList is what a key kind's GET /v1/models gave: its ids, or why it
// could not be read.
type KeyList struct {
	IDs    []string
	Unread string
}

// ResolveNames names each catalog model from the list of its key kind (the
// kind of its verified cases, else of its first case): the given name; the
// spec id, if listed; else the one listed id that names it (modelid.Names;
// plain ids before suffixed ones). A model whose kind has no list keeps the
// spec id.
func ResolveNames(cat *catalog.Catalog, lists map[catalog.KeyKind]KeyList, given map[string]string) ModelNames {
	n := ModelNames{Given: given, Entries: map[string]ModelName{}, Words: map[catalog.KeyKind]map[string]string{}}
	learned := map[catalog.KeyKind]map[string][]string{}
	home := homeKinds(cat)
	for _, spec := range slices.Sorted(maps.Keys(home)) {
		kind := home[spec]
		list, ok := lists[kind]
		if !ok {
			continue
		}
		e, word := resolveName(spec, kind, list, given)
		n.Entries[spec] = e
		if w, _, ok := modelid.Neutral(spec); ok && word != "" {
			if learned[kind] == nil {
				learned[kind] = map[string][]string{}
			}
			learned[kind][w] = append(learned[kind][w], word)
		}
	}
	for kind, words := range learned {
		for neutral, ws := range words {
			if ws = slices.Compact(slices.Sorted(slices.Values(ws))); len(ws) == 1 { // a word the list uses consistently
				if n.Words[kind] == nil {
					n.Words[kind] = map[string]string{}
				}
				n.Words[kind][neutral] = ws[0]
			}
		}
	}
	return n
}

// resolveName names one spec id from its kind's list, and returns the word
// the list puts in place of its neutral one, if it shows it.
func resolveName(spec string, kind catalog.KeyKind, list KeyList, given map[string]string) (ModelName, string) {
	e := ModelName{Spec: spec, Key: kind}
	if g, ok := givenFor(given, spec); ok {
		e.Gateway, e.Source, e.Why = g, NameGiven, list.Unread
		e.Unlisted = list.Unread == "" && !slices.Contains(list.IDs, g)
		return e, ""
	}
	if list.Unread != "" {
		e.Source, e.Why = NameUnread, list.Unread
		return e, ""
	}
	var plain, spelled []string
	word := ""
	for _, id := range list.IDs {
		naming, ok := modelid.Names(spec, id)
		switch {
		case !ok:
		case naming.Plain:
			plain = append(plain, id)
			word = naming.Word
		default:
			spelled = append(spelled, id)
		}
	}
	cands := plain
	if len(cands) == 0 {
		cands = spelled
	}
	switch {
	case slices.Contains(list.IDs, spec):
		e.Gateway, e.Source = spec, NameListed
		w, _, _ := modelid.Neutral(spec)
		return e, w
	case len(cands) == 1:
		e.Gateway, e.Source = cands[0], NameResolved
		if len(plain) == 1 {
			return e, word
		}
		return e, ""
	case len(cands) > 1:
		e.Source, e.Candidates = NameAmbiguous, slices.Sorted(slices.Values(cands))
	default:
		e.Source, e.Listed, e.ListedCount = NameUnlisted, firstListed(list.IDs), len(list.IDs)
	}
	return e, ""
}

// maxListed bounds the ids an unlisted model's record keeps of its key's
// list: enough to show what the gateway calls its models, not a relay's
// hundreds in every manifest.
const maxListed = 8

// firstListed are a list's first ids in order, at most maxListed.
func firstListed(ids []string) []string {
	sorted := slices.Sorted(slices.Values(ids))
	return sorted[:min(len(sorted), maxListed)]
}

// homeKinds maps each catalog model to the key kind whose list names it:
// the kind of its verified cases (a negative case sends an image model
// with the messages key on purpose), else of its first case.
func homeKinds(cat *catalog.Catalog) map[string]catalog.KeyKind {
	home := map[string]catalog.KeyKind{}
	for _, verified := range []bool{true, false} {
		for _, cs := range cat.Cases {
			if (cs.Tier == vocab.TierVerified) != verified {
				continue
			}
			for _, m := range cs.Models {
				if _, ok := home[m]; !ok {
					home[m] = cs.Key
				}
			}
		}
	}
	return home
}

// Gateway is the id a request made with a key of kind sends for id: its
// given or resolved name; for an id of the spec's form that no list can
// show (a retired id, an unknown one), the id with the word kind's list
// uses (learned, else another kind's where they agree); else id itself.
func (n ModelNames) Gateway(kind catalog.KeyKind, id string) string {
	if g, ok := givenFor(n.Given, id); ok {
		return g
	}
	if e, ok := n.Entries[id]; ok {
		return cmp.Or(e.Gateway, id)
	}
	if w, ok := n.word(kind, id); ok {
		return modelid.Rename(id, w)
	}
	return id
}

// word is the word a key kind's list puts in place of id's neutral word,
// or where that kind shows none, the one word every other kind that shows
// it agrees on.
func (n ModelNames) word(kind catalog.KeyKind, id string) (string, bool) {
	neutral, _, ok := modelid.Neutral(id)
	if !ok {
		return "", false
	}
	if w, ok := n.Words[kind][neutral]; ok {
		return w, true
	}
	var seen []string
	for _, words := range n.Words {
		if w, ok := words[neutral]; ok && !slices.Contains(seen, w) {
			seen = append(seen, w)
		}
	}
	if len(seen) == 1 {
		return seen[0], true
	}
	return "", false
}

// Unchecked says why a call of cs for the spec model sends nothing: the
// model it sends ({{ .Model }}, or an id written in the case, such as the
// retired one) has no name the run can vouch for. Its key's list names it
// in no way; or the list could not be read and neither --model-map nor a
// word learned from another list names it, so any id sent would be a
// guess, and a 404 to a guess says nothing of the gateway. nil otherwise.
func (n ModelNames) Unchecked(cs *catalog.Case, model string) *vocab.Reason {
	e, named := n.Entries[model]
	lit, literal := cs.Request.LiteralModel()
	if !literal && !(named && (e.Source == NameUnread || e.Source == NameUnlisted)) {
		return nil // nothing to vouch for; sendsModel (a marshal per call) is not asked
	}
	if !sendsModel(cs) {
		if !literal {
			return nil
		}
		if _, given := givenFor(n.Given, lit); given {
			return nil
		}
		if _, learned := n.word(cs.Key, lit); learned {
			return nil
		}
		if why, unread := n.Unread(cs.Key); unread {
			return unreadReason(cs.Key, why, lit)
		}
		return nil
	}
	switch {
	case !named:
		return nil
	case e.Source == NameUnread:
		return unreadReason(e.Key, e.Why, model)
	case e.Source == NameUnlisted:
		return &vocab.Reason{Check: vocab.CheckNotListed, Where: model, Message: unlistedLine(e)}
	}
	return nil
}

// unlistedLine says that a spec model's key lists it in no way, and what
// the key lists.
func unlistedLine(e ModelName) string {
	return fmt.Sprintf("%s is not listed for the %s key (it lists %s); if the gateway names it otherwise, map it: --model-map %s=ID",
		e.Spec, e.Key, listedIDs(e.Listed, e.ListedCount), e.Spec)
}

// Unread reports why kind's list could not be read, if it could not: its
// models left unread, or mapped by --model-map over the unread list.
func (n ModelNames) Unread(kind catalog.KeyKind) (string, bool) {
	for _, e := range n.Entries {
		if e.Key == kind && e.Why != "" && (e.Source == NameUnread || e.Source == NameGiven) {
			return e.Why, true
		}
	}
	return "", false
}

// unreadReason skips a call whose model's key's list could not be read:
// one line for the key, whatever the model (the recap shows the list as
// the one cause), saying what to do: the word form names every model of
// the word at once, a pair one model.
func unreadReason(kind catalog.KeyKind, why, model string) *vocab.Reason {
	return &vocab.Reason{Check: vocab.CheckListUnread, Where: model, Message: unreadLine(kind, why, model)}
}

// unreadLine is what the skip of a model of an unread list says: the same
// for every model of the key's word, so the recap says it once.
func unreadLine(kind catalog.KeyKind, why, model string) string {
	fix := "a pair per model: --model-map SPEC=ID"
	if word, _, ok := modelid.Neutral(model); ok {
		fix = fmt.Sprintf("the word form: --model-map %s=%s (every %s- model), or a pair per model: --model-map SPEC=ID",
			word, modelid.VendorWord(word), word)
	}
	return fmt.Sprintf("not checked: the %s key's model list could not be read (%s); nothing is sent under a guessed id; name its models with %s", kind, why, fix)
}

// listedIDs shows the first ids of a list of count.
func listedIDs(ids []string, count int) string {
	switch {
	case count == 0:
		return "no model"
	case count > len(ids):
		return strings.Join(ids, ", ") + fmt.Sprintf(" and %d more", count-len(ids))
	}
	return strings.Join(ids, ", ")
}

// Ambiguities refuses the spec models of models that several listed ids
// name: the run cannot know which one the spec means.
func (n ModelNames) Ambiguities(models []string) error {
	var errs []string
	for _, m := range slices.Compact(slices.Sorted(slices.Values(models))) {
		if e := n.Entries[m]; e.Source == NameAmbiguous {
			errs = append(errs, fmt.Sprintf("%s: the %s key lists %d ids that name it (%s); pick one with --model-map %s=ID",
				m, e.Key, len(e.Candidates), strings.Join(e.Candidates, ", "), m))
		}
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "\n"))
	}
	return nil
}

// Models are the spec models of the calls to be made, each once.
func Models(calls []Call) []string {
	var out []string
	for _, c := range calls {
		if c.Skip == nil && !slices.Contains(out, c.Model) {
			out = append(out, c.Model)
		}
	}
	return out
}

// Both are the names a selection glob or a waiver may use for a spec
// model: the spec id, the gateway's if it differs, and the spec id in each
// vendor word of the table (gpt-image-2), which names it before any list
// was read (plan, show).
func (n ModelNames) Both(kind catalog.KeyKind, spec string) []string {
	out := []string{spec}
	if g := n.Gateway(kind, spec); g != spec {
		out = append(out, g)
	}
	for _, v := range modelid.VendorSpellings(spec) {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// Aliases are the names besides the spec's ids a --model glob or a waiver
// may use for the catalog's models: the gateway's ids (GatewayIDs) and
// each model's vendor spellings.
func (n ModelNames) Aliases(cat *catalog.Catalog) []string {
	out := n.GatewayIDs()
	for m := range KnownModels(cat) {
		out = append(out, modelid.VendorSpellings(m)...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// GatewayIDs are the gateway's ids for the catalog's models that differ
// from the spec's: what a --model glob or a waiver may name besides them.
func (n ModelNames) GatewayIDs() []string {
	var out []string
	for _, e := range n.Records() {
		if e.Gateway != "" && e.Gateway != e.Spec {
			out = append(out, e.Gateway)
		}
	}
	return out
}

// Covers reports whether a listed id is one of the catalog's models under
// the gateway's name, or a spelling of one: not a new model for probe or
// the coverage listing.
func (n ModelNames) Covers(cat *catalog.Catalog, id string) bool {
	for _, e := range n.Records() {
		if _, spelled := modelid.Names(e.Spec, id); spelled || e.Gateway == id || slices.Contains(e.Candidates, id) {
			return true
		}
	}
	return KnownModels(cat)[id]
}

// Said are the lines that say, per key kind, each spec id sent under
// another name and how it was found ("text key: gen-5.5 → gpt-5.5; ..."),
// each spec id the list does not name, and each list that could not be
// read.
func (n ModelNames) Said() []string {
	var lines []string
	for _, kind := range catalog.KeyKinds {
		var renamed, unlisted []string
		unread, unreadModel := "", ""
		for _, e := range n.Records() {
			switch {
			case e.Key != kind:
			case e.Source == NameResolved:
				renamed = append(renamed, e.Spec+" → "+e.Gateway)
			case e.Source == NameGiven && e.Unlisted:
				renamed = append(renamed, e.Spec+" → "+e.Gateway+" (--model-map; not in the key's list: sent anyway)")
			case e.Source == NameGiven:
				renamed = append(renamed, e.Spec+" → "+e.Gateway+" (--model-map)")
			case e.Source == NameUnread:
				unread, unreadModel = e.Why, e.Spec
			case e.Source == NameUnlisted:
				unlisted = append(unlisted, e.Spec)
			}
		}
		if len(renamed) > 0 {
			lines = append(lines, fmt.Sprintf("%s key: %s", kind, strings.Join(renamed, "; ")))
		}
		for _, spec := range unlisted {
			lines = append(lines, unlistedLine(n.Entries[spec]))
		}
		if unread != "" {
			lines = append(lines, fmt.Sprintf("%s key's models %s", kind, unreadLine(kind, unread, unreadModel)))
		}
	}
	// With no list read (the gateway declares none: --offers
	// '!models.*'), the names given are sent all the same: say them.
	if len(n.Entries) == 0 && len(n.Given) > 0 {
		var given []string
		for _, spec := range slices.Sorted(maps.Keys(n.Given)) {
			given = append(given, spec+" → "+n.Given[spec])
		}
		lines = append(lines, "--model-map: "+strings.Join(given, "; "))
	}
	return lines
}

// Records are the entries in spec id order, as reports and the manifest
// keep them; the given names of models no list resolved are among them.
func (n ModelNames) Records() []ModelName {
	out := make([]ModelName, 0, len(n.Entries))
	for _, spec := range slices.Sorted(maps.Keys(n.Entries)) {
		out = append(out, n.Entries[spec])
	}
	for _, spec := range slices.Sorted(maps.Keys(n.Given)) {
		if _, ok := n.Entries[spec]; !ok && !isWord(spec) {
			out = append(out, ModelName{Spec: spec, Gateway: n.Given[spec], Source: NameGiven})
		}
	}
	return out
}

// ParseModelMap reads --model-map entries: SPEC=GATEWAY, a catalog id and
// the gateway's id for it, or WORD=NAME, a neutral word (gen, msg, alt)
// and what the gateway puts in its place (gpt, openai/gpt), for every
// catalog id with that word. An entry may hold several, comma-separated;
// a comma splits only before a piece that holds "=", since a gateway's id
// may hold commas itself (provider,model).
func ParseModelMap(entries []string) (map[string]string, error) {
	var out map[string]string
	for _, list := range entries {
		for _, pair := range splitPairs(list) {
			spec, gw, ok := strings.Cut(pair, "=")
			spec, gw = strings.TrimSpace(spec), strings.TrimSpace(gw)
			if !ok || spec == "" || gw == "" {
				return nil, fmt.Errorf("--model-map %q: want SPEC=GATEWAY (gen-5.5=gpt-5.5) or WORD=NAME (gen=gpt, gen=openai/gpt)", pair)
			}
			if strings.ContainsAny(gw, " \t") {
				return nil, fmt.Errorf("--model-map %s=%s: %q holds white space, which no model id does", spec, gw, gw)
			}
			if prev, dup := out[spec]; dup && prev != gw {
				return nil, fmt.Errorf("--model-map maps %s twice (%s and %s)", spec, prev, gw)
			}
			if out == nil {
				out = map[string]string{}
			}
			out[spec] = gw
		}
	}
	return out, nil
}

// splitPairs cuts a --model-map value at each comma before a piece that
// holds "=": gen-5.5=p,gpt-5.5,msg=claude is gen-5.5=p,gpt-5.5 and
// msg=claude. Empty pieces are dropped.
func splitPairs(s string) []string {
	var out []string
	for piece := range strings.SplitSeq(s, ",") {
		switch {
		case strings.TrimSpace(piece) == "":
		case len(out) > 0 && !strings.Contains(piece, "="):
			out[len(out)-1] += "," + piece
		default:
			out = append(out, strings.TrimSpace(piece))
		}
	}
	for i := range out {
		out[i] = strings.TrimSpace(out[i])
	}
	return out
}

// isWord reports whether a --model-map key is a neutral word (the word
// form) rather than a catalog id.
func isWord(key string) bool { return slices.Contains(modelid.NeutralWords, key) }

// givenFor is the name --model-map gives a catalog id: its own entry, else
// the id with the word its neutral word is mapped to.
func givenFor(given map[string]string, id string) (string, bool) {
	if g, ok := given[id]; ok && !isWord(id) {
		return g, true
	}
	if w, _, ok := modelid.Neutral(id); ok {
		if name, ok := given[w]; ok {
			return modelid.Rename(id, name), true
		}
	}
	return "", false
}

// ExpandModelMap is given with its word forms spelled out for each model of
// the catalog and each literal id its requests send (a retired id): what a
// reader of traffic compares the gateway's ids with.
func ExpandModelMap(cat *catalog.Catalog, given map[string]string) map[string]string {
	out := map[string]string{}
	for id := range mappable(cat) {
		if g, ok := givenFor(given, id); ok {
			out[id] = g
		}
	}
	return out
}

// mappable are the ids --model-map may name: the catalog's models and the
// literal ids its requests send (msg-sonnet-4-6, the retired id).
func mappable(cat *catalog.Catalog) map[string]bool {
	known := KnownModels(cat)
	for _, cs := range cat.Cases {
		if lit, ok := cs.Request.LiteralModel(); ok {
			known[lit] = true
		}
	}
	return known
}

// CheckModelMap refuses a given name whose left side is neither a model
// of the catalog, nor an id its requests send, nor a neutral word, with a
// did-you-mean: a typo would map nothing in silence.
func CheckModelMap(cat *catalog.Catalog, given map[string]string) error {
	known := mappable(cat)
	names := slices.Sorted(maps.Keys(known))
	var errs []string
	for _, spec := range slices.Sorted(maps.Keys(given)) {
		if !known[spec] && !isWord(spec) {
			errs = append(errs, fmt.Sprintf("--model-map %s=%s: %s is no model of the catalog nor one of the words %s%s",
				spec, given[spec], spec, strings.Join(modelid.NeutralWords, ", "), catalog.Closest(spec, names)))
		}
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "\n"))
	}
	return nil
}
