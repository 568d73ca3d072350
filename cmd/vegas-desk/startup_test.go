package main

import (
	"strings"
	"testing"

	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"golang.org/x/text/message/catalog"
)

// text writes what golang.org/x/text/message's printer wrote from a
// catalogue of the French (the command line's before its catalogue was
// made on first use, without the printer): every text of the catalogue and
// of the command tree, in both languages.
func TestTextAsPrinter(t *testing.T) {
	b := catalog.NewBuilder()
	for en, fr := range frenchMessages() {
		if err := b.SetString(language.French, en, fr); err != nil {
			t.Fatalf("%q: %v", en, err)
		}
	}
	texts := map[string]bool{"": true, "not in the catalogue, 100 %": true}
	for key := range frenchMessages() {
		if !strings.Contains(strings.ReplaceAll(key, "%%", ""), "%") {
			texts[strings.ReplaceAll(key, "%%", "%")] = true
		}
	}
	root := (&cli{}).commands()
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	for _, cmd := range append(root.Commands(), root) {
		texts[cmd.Short], texts[cmd.Long] = true, true
		for _, sub := range cmd.Commands() {
			texts[sub.Short], texts[sub.Long] = true, true
		}
	}
	n, percent := 0, false
	for _, tag := range []language.Tag{language.English, language.French} {
		p := message.NewPrinter(tag, message.Catalog(b))
		c := &cli{lang: tag}
		for s := range texts {
			want := s
			if s != "" {
				want = p.Sprintf(strings.ReplaceAll(s, "%", "%%"))
			}
			if got := c.text(s); got != want {
				t.Errorf("%v: text(%q) = %q, the printer wrote %q", tag, s, got, want)
			}
			if tag == language.French && want != s {
				n++
				percent = percent || strings.Contains(want, "%")
			}
		}
	}
	if n < 250 || !percent {
		t.Errorf("%d texts translated (a %% among them: %v), want the catalogue's hundreds and a %%", n, percent)
	}
}

// Every rewrite of another's message compiles (they are compiled when a
// French process first needs one).
func TestRewritesCompile(t *testing.T) {
	var all []*lazyRegexp
	for _, rs := range [][]rewrite{cobraErrors, serialErrors, flagWords, reasonWords, packCodeWords, ledgerWords} {
		for _, r := range rs {
			all = append(all, r.re)
		}
	}
	for _, x := range packMoveWords {
		all = append(all, x.re)
	}
	if len(all) != 56 {
		t.Errorf("%d rewrites, want 56", len(all))
	}
	for _, r := range all {
		func() {
			defer func() {
				if err := recover(); err != nil {
					t.Errorf("%q: %v", r.src, err)
				}
			}()
			r.get()
		}()
	}
}
