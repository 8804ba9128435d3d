package conformance

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/execute"
	"github.com/gwconform/gwconform/conformance/plan"
)

// A run setting is declared once, in SettingsTable: its flag, variable and
// gwconform.yaml key, type, default and validation, and what the manifest
// records of it. The command line's flags, the variables, the file, the
// adoption of a recorded run (--resume, --rerun-failed) and go test's
// ConfigFromEnv all read that one table, so a setting cannot mean two
// things in two places, and a bad value is refused wherever it comes from.
// Precedence: a flag, else a variable, else the file, else the default.

// SettingKind is a setting's type.
type SettingKind int

const (
	KindString   SettingKind = iota
	KindInt                  // a whole number, at least Min
	KindFloat                // a number, at least Min
	KindDuration             // a Go duration, never negative
	KindBool
	KindList   // comma-separated, repeatable: selection globs
	KindRepeat // repeatable, commas kept: headers
	// KindPairs is repeatable, each value NAME=VALUE pairs whose reader
	// (plan.ParseModelMap) cuts at a comma only before a piece holding
	// "=": a value may hold commas.
	KindPairs
)

// Setting declares one run setting.
type Setting struct {
	Name  string // the flag, --Name
	Env   string // the variable read when no flag gives it; "" none
	File  string // the gwconform.yaml key; "group.key" inside a group; "" none
	Kind  SettingKind
	Usage string
	// Default is the value when no source gives one, as a flag would be
	// written.
	Default string
	// Min is the least value of a number.
	Min float64
	// NonEmpty refuses an empty string from any source; EmptyEnv says what
	// an empty variable means: "" for "not set" (a key the CI job did not
	// have), otherwise the refusal's reason.
	NonEmpty bool
	EmptyEnv string
	// Recorded, when set, reads the setting from a recorded run's manifest
	// (as a flag would be written): --resume and --rerun-failed adopt that
	// value unless the command line gives one.
	Recorded func(Manifest) string
}

// isList reports whether the setting holds a list of values.
func (d *Setting) isList() bool {
	return d.Kind == KindList || d.Kind == KindRepeat || d.Kind == KindPairs
}

// SettingsTable is every run setting of run, plan and probe.
var SettingsTable = buildSettingsTable()

func buildSettingsTable() []Setting {
	list := func(l []string) string { return strings.Join(l, ",") }
	t := []Setting{
		{Name: "config", Default: "gwconform.yaml", NonEmpty: true,
			Usage: "optional `FILE` of settings (the file keys below; never keys)"},
		{Name: "cases", File: "cases", Usage: "case `DIR` (default: the embedded catalog)",
			Recorded: func(m Manifest) string { return m.CasesDir }},
		{Name: "cases-extra", Kind: KindList, File: "cases_extra", Usage: "case `FILES` loaded beside the catalog, as strictly: model additions (what gwconform probe prints) and cases of your own; repeatable or comma-separated",
			Recorded: func(m Manifest) string { return list(m.CasesExtra) }},
		{Name: "out", File: "out", Default: "out", NonEmpty: true, Usage: "output `DIR`"},
		{Name: "base-url", Env: "GWCONFORM_BASE_URL", File: "base_url", NonEmpty: true,
			EmptyEnv: "GWCONFORM_BASE_URL is set but empty: unset it to test the in-process reference gateway, or give the gateway's URL",
			Usage:    "gateway base `URL` (unset: the in-process reference gateway)",
			Recorded: func(m Manifest) string { return m.BaseURL }},
		{Name: "public-image-url", Env: "GWCONFORM_PUBLIC_IMAGE_URL", File: "public_image_url",
			Usage: "HTTPS PNG `URL` for the URL-reference case"},
	}
	for _, k := range catalog.KeyKinds {
		t = append(t, Setting{Name: string(k) + "-base-url", Env: plan.BaseURLVariables[k], File: "base_urls." + string(k), NonEmpty: true,
			Usage:    fmt.Sprintf("base `URL` of the %s key's requests, for a gateway that routes it under a prefix (default: --base-url)", k),
			Recorded: func(m Manifest) string { return m.KindBaseURLs[string(k)] }})
	}
	t = append(t, Setting{Name: "offers", Kind: KindList, Env: "GWCONFORM_OFFERS", File: "offers",
		Usage:    "feature `GLOBS` the gateway offers, repeatable or comma-separated; !GLOB excludes; a feature not offered is skipped, nothing sent (default: every feature)",
		Recorded: func(m Manifest) string { return list(m.Offers) }})
	t = append(t, Setting{Name: "model-map", Kind: KindPairs, Env: "GWCONFORM_MODEL_MAP", File: "model_map",
		Usage:    "the gateway's names: `SPEC=ID` for one model, or WORD=NAME (gen=gpt, msg=claude, alt=gemini, gen=openai/gpt) for every catalog id with that neutral word; repeatable or comma-separated, a comma splitting only before a piece with = (ids may hold commas); default: read from each key's GET /v1/models",
		Recorded: func(m Manifest) string { return list(m.ModelMap) }})
	for _, k := range catalog.KeyKinds {
		t = append(t, Setting{Name: string(k) + "-key", Env: plan.KeyVariables[k], Usage: fmt.Sprintf("%s `KEY`", k)})
	}
	t = append(t, []Setting{
		{Name: "feature", Kind: KindList, Usage: "feature `GLOBS`, repeatable or comma-separated; !GLOB excludes",
			Recorded: func(m Manifest) string { return list(m.Selection.Features) }},
		{Name: "model", Kind: KindList, Usage: "model `GLOBS`; !GLOB excludes",
			Recorded: func(m Manifest) string { return list(m.Selection.Models) }},
		{Name: "case", Kind: KindList, Usage: "case id `GLOBS`; !GLOB excludes",
			Recorded: func(m Manifest) string { return list(m.Selection.Cases) }},
		{Name: "tier", Kind: KindList, Env: "GWCONFORM_TIERS", Usage: "`TIERS`: verified, negative, strict, explore (exact words); !TIER excludes",
			Recorded: func(m Manifest) string { return list(m.Selection.Tiers) }},
		{Name: "shard", Usage: "run shard `i/n`",
			Recorded: func(m Manifest) string { return m.Selection.Shard }},
		{Name: "max-calls", Kind: KindInt, Default: "0", Usage: "make at most `N` calls, verified and negative first; planned calls beyond are skipped (0: no cap)",
			Recorded: func(m Manifest) string { return strconv.Itoa(m.Selection.MaxCalls) }},
		{Name: "max-cost", Kind: KindFloat, Default: "0", Usage: "spend at most `UNITS` estimated cost units (see gwconform plan), verified and negative first (0: no cap)",
			Recorded: func(m Manifest) string { return strconv.FormatFloat(m.Selection.MaxCost, 'g', -1, 64) }},
		{Name: "concurrency", Kind: KindInt, File: "concurrency", Default: "4", Min: 1, Usage: "calls in flight per key",
			Recorded: func(m Manifest) string { return strconv.Itoa(m.Options.Concurrency) }},
		{Name: "retries", Kind: KindInt, File: "retries", Default: "2", Usage: "retries after 408, 409, any 5xx or a connection error before any response byte, as the official clients retry (0: none); a 429 is waited on, not retried (--max-wait)",
			Recorded: func(m Manifest) string { return strconv.Itoa(m.Options.Retries) }},
		{Name: "max-wait", Kind: KindDuration, File: "max_wait", Default: "15m", Min: 1,
			Usage:    "how long one call may wait on the gateway's rate limit (429s, spent quotas) before its 429 is its answer: throttled",
			Recorded: func(m Manifest) string { return m.Options.MaxWait }},
		{Name: "timeout", Kind: KindDuration, File: "timeout", Default: execute.SpecMaxDuration.String(), Min: 1,
			Usage:    "whole-request limit (spec 8 allows 600 s; a shorter one ends a call as an error, not a verdict)",
			Recorded: func(m Manifest) string { return m.Options.Timeout }},
		{Name: "connect-timeout", Kind: KindDuration, File: "connect_timeout", Default: "0", Usage: "limit on connecting, TLS included (0: --timeout)"},
		{Name: "header-timeout", Kind: KindDuration, File: "header_timeout", Default: "0", Usage: "limit until the first response byte (0: --timeout; a non-streaming image call may rightly take minutes)"},
		{Name: "idle-timeout", Kind: KindDuration, File: "idle_timeout", Default: "0", Usage: "limit on a gap between two body bytes, SSE comments included (0: --timeout)"},
		{Name: "verbose", Kind: KindBool, Default: "false", Usage: "print every result with all its reasons (a log otherwise gets a line per failure that decides the verdict, and the recap)"},
		{Name: "strict", Kind: KindBool, Env: "GWCONFORM_STRICT", Default: "false", Usage: "strict-tier failures count toward the exit code",
			Recorded: func(m Manifest) string { return strconv.FormatBool(m.Strict) }},
		{Name: "header", Kind: KindRepeat, Env: plan.HeaderVariables[""], File: "headers.all",
			Usage: "'Name: value' sent with every request (repeatable; ${VAR} reads a variable and is redacted like a key)"},
	}...)
	for _, k := range catalog.KeyKinds {
		t = append(t, Setting{Name: string(k) + "-header", Kind: KindRepeat, Env: plan.HeaderVariables[k], File: "headers." + string(k),
			Usage: fmt.Sprintf("'Name: value' sent with the requests of the %s key (repeatable)", k)})
	}
	t = append(t, []Setting{
		{Name: "ca-cert", File: "ca_cert", Usage: "PEM `FILE` of a private CA to trust besides the system's"},
		{Name: "insecure", Kind: KindBool, Default: "false", Usage: "do not verify the gateway's certificate (flagged in every report)"},
		{Name: "waivers", Env: "GWCONFORM_WAIVERS", Usage: "known deviations: a YAML `FILE` listing case/model globs with reason, link and expires",
			Recorded: func(m Manifest) string {
				if m.Waivers == nil {
					return ""
				}
				return m.Waivers.Path
			}},
		{Name: "record", Usage: "write every call's whole exchange to the recording `DIR`, for run --replay and serve --replay",
			Recorded: func(m Manifest) string { return m.Record }},
		{Name: "replay", Usage: "re-run every check on the exchanges recorded in `DIR` by run --record, with no network and no key",
			Recorded: func(m Manifest) string { return m.Replay }},
		{Name: "rerun-failed", Kind: KindBool, Default: "false",
			Usage: "re-run the fail, error and throttled verified/negative results recorded in --out, and the calls its run never made, with that run's settings (its manifest.json)"},
		{Name: "resume", Kind: KindBool, Default: "false",
			Usage: "continue the run in --out that was interrupted, with that run's settings (its manifest.json)"},
		{Name: "clients", Kind: KindList, Env: "GWCONFORM_CLIENTS",
			Usage: "client library `GLOBS` whose readiness the console and reports show, ids of cases/clients/clients.yaml (openai-go, 'anthropic-*'); repeatable or comma-separated (default: every one)"},
		{Name: "require-clients", Kind: KindList, Env: "GWCONFORM_REQUIRE_CLIENTS",
			Usage: "client `LIBRARIES` whose readiness decides, for a gateway that promises them: exit 1 when one is NOT READY or LIMITED (default: readiness is reported, not deciding)"},
		{Name: "model-id", Usage: "probe this `MODEL` only (with --family), even if the catalog knows it"},
		{Name: "family", Usage: "the family of --model-id: text, messages, image or alt"},
	}...)
	return t
}

// settingDef returns the table's row of a name; an unknown name is a bug.
func settingDef(name string) *Setting {
	for i := range SettingsTable {
		if SettingsTable[i].Name == name {
			return &SettingsTable[i]
		}
	}
	panic("no setting " + name)
}

// Settings holds the values of some of the table's settings and where
// each came from.
type Settings struct {
	fs     *flag.FlagSet
	values map[string]*settingValue
	names  []string
}

// settingValue is one setting's value; it is the flag.Value of its flag,
// so a flag, a variable and the file are parsed and checked alike.
type settingValue struct {
	def    *Setting
	text   string   // a single value, as given
	list   []string // KindList, KindRepeat, KindPairs
	source string   // "--name", "$VAR", "file:line:col", "the recorded run", or "" for the default
}

func (v *settingValue) String() string {
	if v == nil || v.def == nil { // the flag package's zero value
		return ""
	}
	if v.def.isList() {
		return strings.Join(v.list, ",")
	}
	return v.text
}

func (v *settingValue) IsBoolFlag() bool { return v.def != nil && v.def.Kind == KindBool }

// Set parses and checks one value; a list setting adds to its list.
func (v *settingValue) Set(s string) error {
	switch v.def.Kind {
	case KindList:
		for _, item := range strings.Split(s, ",") {
			if item = strings.TrimSpace(item); item != "" {
				v.list = append(v.list, item)
			}
		}
		return nil
	case KindRepeat, KindPairs:
		v.list = append(v.list, s)
		return nil
	}
	check := valueChecks[v.def.Kind]
	if check == nil {
		check = checkText
	}
	if err := check(v.def, s); err != nil {
		return err
	}
	v.text = s
	return nil
}

// valueChecks parse and check a value of each kind of one value (text
// when not listed).
var valueChecks = map[SettingKind]func(d *Setting, s string) error{
	KindInt: func(d *Setting, s string) error {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return fmt.Errorf("%q is not a whole number", s)
		}
		if float64(n) < d.Min {
			return fmt.Errorf("%d is below the least value, %g", n, d.Min)
		}
		return nil
	},
	KindFloat: func(d *Setting, s string) error {
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return fmt.Errorf("%q is not a number", s)
		}
		if f < d.Min {
			return fmt.Errorf("%g is below the least value, %g", f, d.Min)
		}
		return nil
	},
	KindDuration: func(d *Setting, s string) error {
		dur, err := time.ParseDuration(strings.TrimSpace(s))
		switch {
		case err != nil:
			return fmt.Errorf("%q is not a duration (such as 90s or 10m)", s)
		case dur < 0:
			return fmt.Errorf("%s is negative", dur)
		case d.Min > 0 && dur == 0:
			return fmt.Errorf("0 is no limit to wait for: give a positive duration")
		}
		return nil
	},
	KindBool: func(_ *Setting, s string) error {
		if _, err := strconv.ParseBool(s); err != nil {
			return fmt.Errorf("%q is not true or false", s)
		}
		return nil
	},
}

// checkText checks a text value: some settings may not be empty.
func checkText(d *Setting, s string) error {
	if d.NonEmpty && strings.TrimSpace(s) == "" {
		return errors.New("it is empty")
	}
	return nil
}

// NewSettings declares the named settings; with fs, each as a flag of fs.
func NewSettings(fs *flag.FlagSet, names ...string) *Settings {
	s := &Settings{fs: fs, values: map[string]*settingValue{}, names: names}
	for _, name := range names {
		d := settingDef(name)
		v := &settingValue{def: d}
		s.values[name] = v
		if fs != nil {
			usage := d.Usage
			if d.Env != "" {
				usage += " ($" + d.Env + ")"
			}
			if d.File != "" {
				usage += " [gwconform.yaml: " + d.File + "]"
			}
			fs.Var(v, name, usage)
			if name == "header" {
				fs.Var(v, "H", "short for --header")
			}
		}
	}
	return s
}

// Parse reads the command line: it refuses a stray argument and a flag
// given a flag as its value (--text-key --out), then the variables and the
// file fill what the command line left out, and the defaults the rest.
func (s *Settings) Parse(args []string) error {
	_, err := s.parse(args, "[flags]", false)
	return err
}

// FlagError says a refusal of the flag package in one line, naming flags
// with two dashes as the documentation does, and adds a did-you-mean to
// an unknown flag: every command's refusal of its command line.
func FlagError(fs *flag.FlagSet, err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		if hint := catalog.Closest(name, names); hint != "" {
			return fmt.Errorf("unknown flag --%s%s", name, strings.Replace(hint, `"`, `"--`, 1))
		}
		return fmt.Errorf("unknown flag --%s (gwconform %s -h lists them)", name, strings.TrimPrefix(fs.Name(), "gwconform "))
	}
	// The flag package's other refusals name the flag with one dash:
	// "invalid value "x" for flag -n: ...", "flag needs an argument: -out".
	return errors.New(oneDashFlag.ReplaceAllString(msg, "$1--$2"))
}

// oneDashFlag finds a flag the flag package names with one dash.
var oneDashFlag = regexp.MustCompile(`(for flag |for |argument: )-([A-Za-z0-9][-A-Za-z0-9]*)`)

// ParseOperands reads the command line as Parse does, but for the operands
// after the flags, which it returns (show's CASE); synopsis is what follows
// the command's name in its usage line ("[flags] CASE").
func (s *Settings) ParseOperands(args []string, synopsis string) ([]string, error) {
	return s.parse(args, synopsis, true)
}

func (s *Settings) parse(args []string, synopsis string, operands bool) ([]string, error) {
	if err := s.flagAsValue(args); err != nil {
		return nil, err
	}
	// A refusal is one line, said once by the command, with a
	// did-you-mean; the whole flag list only when asked (-h).
	s.fs.Usage = func() {}
	out := s.fs.Output()
	s.fs.SetOutput(io.Discard) // the flag package would say the refusal too
	err := s.fs.Parse(args)
	var given []string // operands, between and after which flags may come too (show CASE --curl)
	for err == nil && operands && s.fs.NArg() > 0 {
		given = append(given, s.fs.Arg(0))
		err = s.fs.Parse(s.fs.Args()[1:])
	}
	s.fs.SetOutput(out)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(out, "usage: %s %s\n", s.fs.Name(), synopsis)
			s.fs.PrintDefaults()
			return nil, err
		}
		return nil, FlagError(s.fs, err)
	}
	if s.fs.NArg() > 0 && !operands {
		return nil, fmt.Errorf("unexpected argument %q (flags go before it: gwconform %s -h lists them)", s.fs.Arg(0), strings.TrimPrefix(s.fs.Name(), "gwconform "))
	}
	s.fs.Visit(func(f *flag.Flag) {
		if v, ok := s.values[f.Name]; ok {
			v.source = "--" + f.Name
		} else if f.Name == "H" {
			s.values["header"].source = "-H"
		}
	})
	file, err := s.readFile()
	if err != nil {
		return nil, err
	}
	return given, s.fill(file)
}

// FromEnv fills the settings from the variables and the defaults only: go
// test's configuration.
func (s *Settings) FromEnv() error { return s.fill(nil) }

// flagAsValue refuses "--name --other": Go's parser would take --other as
// the value of --name and drop the flag silently.
func (s *Settings) flagAsValue(args []string) error {
	for i := 0; i+1 < len(args); i++ {
		a := args[i]
		if a == "--" || !strings.HasPrefix(a, "-") {
			return nil // the end of the flags
		}
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		f := s.fs.Lookup(name)
		if f == nil {
			continue // the parser names it
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			continue
		}
		next := args[i+1]
		if other := strings.SplitN(strings.TrimLeft(next, "-"), "=", 2)[0]; strings.HasPrefix(next, "-") && s.fs.Lookup(other) != nil {
			return fmt.Errorf("flag --%s takes a value, got the flag %s (write --%s=VALUE for a value that starts with -)", name, next, name)
		}
		i++ // skip the value
	}
	return nil
}

// readFile reads the --config file, when there is one, with the catalog's
// strict reader. A missing file is fine unless --config named it.
func (s *Settings) readFile() (map[string]catalog.SettingsEntry, error) {
	cfg, ok := s.values["config"]
	if !ok {
		return nil, nil
	}
	path := cfg.text
	if path == "" {
		path = cfg.def.Default
	}
	b, err := os.ReadFile(path)
	if err != nil {
		if cfg.source == "" && errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("--config: %w", err)
	}
	var scalars, lists []string
	groups := map[string][]string{}
	for _, d := range SettingsTable {
		switch group, key, ok := strings.Cut(d.File, "."); {
		case ok:
			groups[group] = append(groups[group], key)
		case d.File != "" && d.isList():
			lists = append(lists, d.File)
		case d.File != "":
			scalars = append(scalars, d.File)
		}
	}
	return catalog.ReadSettings(path, b, scalars, lists, groups)
}

// fill gives each setting no flag set its variable's value, else the
// file's, else its default, checking each as the flag would.
func (s *Settings) fill(file map[string]catalog.SettingsEntry) error {
	for _, name := range s.names {
		v := s.values[name]
		d := v.def
		if v.source != "" {
			continue
		}
		if env, set := os.LookupEnv(d.Env); d.Env != "" && set {
			if strings.TrimSpace(env) == "" {
				if d.EmptyEnv != "" {
					return errors.New(d.EmptyEnv)
				}
			} else {
				if err := s.setAll(v, "$"+d.Env, splitEnv(d, env)); err != nil {
					return err
				}
				continue
			}
		}
		if e, ok := file[d.File]; ok && d.File != "" {
			lines := e.Lines
			if lines == nil {
				lines = []string{e.Text}
			}
			if err := s.setAll(v, e.At, lines); err != nil {
				return err
			}
			continue
		}
		if d.Default != "" {
			if err := v.Set(d.Default); err != nil {
				panic(fmt.Sprintf("setting %s: default %q: %v", name, d.Default, err))
			}
		}
	}
	return nil
}

// splitEnv: a variable of headers holds one "Name: value" a line.
func splitEnv(d *Setting, env string) []string {
	if d.Kind != KindRepeat {
		return []string{env}
	}
	var lines []string
	for _, l := range strings.Split(env, "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

func (s *Settings) setAll(v *settingValue, source string, values []string) error {
	for _, x := range values {
		if err := v.Set(x); err != nil {
			return fmt.Errorf("%s: %s: %w", source, v.def.Name, err)
		}
	}
	v.source = source
	return nil
}

// Adopt gives every setting the command line (a flag or a variable) does
// not set the value the recorded run's manifest has: --resume and
// --rerun-failed continue that run, not a new one.
func (s *Settings) Adopt(m Manifest) error {
	for _, name := range s.names {
		v := s.values[name]
		d := v.def
		if d.Recorded == nil || strings.HasPrefix(v.source, "-") || strings.HasPrefix(v.source, "$") {
			continue
		}
		*v = settingValue{def: d}
		recorded := d.Recorded(m)
		if recorded == "" && d.Default != "" {
			recorded = d.Default
		}
		if recorded == "" {
			continue
		}
		if err := v.Set(recorded); err != nil {
			return fmt.Errorf("%s: %s: %w", ManifestFile, name, err)
		}
		v.source = "the recorded run"
	}
	return nil
}

// Source says where a setting's value came from ("" for its default).
func (s *Settings) Source(name string) string { return s.values[name].source }

// String returns a setting's text ("" when unset).
func (s *Settings) String(name string) string { return s.values[name].text }

// Int returns a whole-number setting.
func (s *Settings) Int(name string) int {
	n, _ := strconv.Atoi(strings.TrimSpace(s.values[name].text))
	return n
}

// Float returns a number setting.
func (s *Settings) Float(name string) float64 {
	f, _ := strconv.ParseFloat(strings.TrimSpace(s.values[name].text), 64)
	return f
}

// Duration returns a duration setting.
func (s *Settings) Duration(name string) time.Duration {
	d, _ := time.ParseDuration(strings.TrimSpace(s.values[name].text))
	return d
}

// Bool returns a boolean setting.
func (s *Settings) Bool(name string) bool {
	b, _ := strconv.ParseBool(s.values[name].text)
	return b
}

// List returns a list setting's values.
func (s *Settings) List(name string) []string { return slices.Clone(s.values[name].list) }

// Target is the gateway the settings name: the base URL, the keys of the
// kinds declared, the public image URL and the headers.
func (s *Settings) Target() (plan.Target, error) {
	t := plan.Target{Keys: map[catalog.KeyKind]string{}}
	if v, ok := s.values["base-url"]; ok {
		t.BaseURL = strings.TrimRight(s.String("base-url"), "/")
		if err := checkBaseURL(t.BaseURL); err != nil {
			return t, fmt.Errorf("%s: %w", orDefault(v.source), err)
		}
	}
	if _, ok := s.values["public-image-url"]; ok {
		t.PublicImageURL = s.String("public-image-url")
	}
	if err := s.kindBases(&t); err != nil {
		return t, err
	}
	if _, ok := s.values["offers"]; ok {
		t.Offers = s.List("offers")
	}
	if v, ok := s.values["model-map"]; ok {
		given, err := plan.ParseModelMap(s.List("model-map"))
		if err != nil {
			return t, fmt.Errorf("%s: %w", orDefault(v.source), err)
		}
		t.Names.Given = given
	}
	for _, kind := range append([]catalog.KeyKind{""}, catalog.KeyKinds...) {
		name := "header"
		if kind != "" {
			name = string(kind) + "-header"
			if v, ok := s.values[string(kind)+"-key"]; ok && v.text != "" {
				t.Keys[kind] = v.text
			}
		}
		v, ok := s.values[name]
		if !ok {
			continue
		}
		for _, line := range v.list {
			if err := t.AddHeader(kind, line, os.Getenv); err != nil {
				return t, fmt.Errorf("%s: %w", orDefault(v.source), err)
			}
		}
	}
	return t, nil
}

// kindBases reads each key kind's own base URL. Beside the default base:
// the in-process gateway serves no prefixes, so a kind's base without
// --base-url is refused.
func (s *Settings) kindBases(t *plan.Target) error {
	for _, k := range catalog.KeyKinds {
		v, ok := s.values[string(k)+"-base-url"]
		if !ok || v.text == "" {
			continue
		}
		if t.BaseURL == "" {
			return fmt.Errorf("--%s-base-url (from %s) needs --base-url too: the base of the other kinds and of requests with no key", k, orDefault(v.source))
		}
		if err := checkBaseURL(v.text); err != nil {
			return fmt.Errorf("%s: %w", orDefault(v.source), err)
		}
		if t.KindBaseURLs == nil {
			t.KindBaseURLs = map[catalog.KeyKind]string{}
		}
		t.KindBaseURLs[k] = strings.TrimRight(v.text, "/")
	}
	return nil
}

// checkBaseURL refuses a base URL that is no http or https address
// ("127.0.0.1:8080" without its scheme), saying how to write it; an empty
// one is the NonEmpty rule's.
func checkBaseURL(base string) error {
	if base == "" {
		return nil
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is no http or https address: write it whole, as http://127.0.0.1:8080 or https://gateway.example", base)
	}
	return nil
}

// orDefault names where a value came from, "the default" for none.
func orDefault(source string) string {
	if source == "" {
		return "the default"
	}
	return source
}
