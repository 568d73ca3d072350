package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/text/language"
)

// cobra's own words, in the command line's language, through cobra's
// hooks rather than by rewriting cobra: its suggestions ("Did you mean
// this?") turned off and made here (unknownCommand, SuggestionsFor), its
// help command's unknown topic an error of ours (helpTopics), its
// completion command's texts French under a French locale
// (frenchCompletion); its templates' headings are translateHelp's, its
// flag errors' cobraErrors'.

// cobraWords sets up root's help command and suggestions (once the tree
// is made, before it runs).
func (c *cli) cobraWords(root *cobra.Command) {
	root.DisableSuggestions = true // unknownCommand says them, in the user's language
	root.SuggestionsMinimumDistance = 2
	root.InitDefaultHelpCmd()
	for _, cmd := range root.Commands() {
		if cmd.Name() == "help" {
			c.helpTopics(cmd)
		}
	}
	if c.lang == language.French {
		root.InitDefaultCompletionCmd()
		c.frenchCompletion(root)
	}
}

// helpTopics makes help of a topic that does not exist a usage error that
// names it and what it may be (cobra's prints "Unknown help topic" and
// the whole usage, and exits 0).
func (c *cli) helpTopics(help *cobra.Command) {
	show := help.Run
	help.Run = nil
	help.RunE = func(cmd *cobra.Command, args []string) error {
		root := cmd.Root()
		found, _, err := root.Find(args)
		if found == nil || err != nil {
			word := ""
			if len(args) > 0 {
				word = args[len(args)-1]
			}
			return badInput("help %s: no such command%s (see vegas-desk --help)", strings.Join(args, " "), c.didYouMean(root, word))
		}
		show(cmd, args)
		return nil
	}
}

// unknownCommand is cobra's error for a word that names no command of
// root (its suggestions turned off), as a usage error of ours with them:
// nil when err is another.
func (c *cli) unknownCommand(root *cobra.Command, err error) error {
	var word, path string
	if n, _ := fmt.Sscanf(err.Error(), "unknown command %q for %q", &word, &path); n != 2 {
		return nil
	}
	parent := root
	if cmd, _, ferr := root.Find(strings.Fields(strings.TrimPrefix(path, root.Name()))); ferr == nil && cmd != nil {
		parent = cmd
	}
	return badInput("unknown command %q for %s%s (see %s --help)", word, path, c.didYouMean(parent, word), path)
}

// didYouMean is ": did you mean claim or claims?" for the commands of
// parent that word may be a mistyping of, or "".
func (c *cli) didYouMean(parent *cobra.Command, word string) string {
	if word == "" {
		return ""
	}
	s := parent.SuggestionsFor(word)
	if len(s) == 0 {
		return ""
	}
	list := s[0]
	if len(s) > 1 {
		list = strings.Join(s[:len(s)-1], ", ") + c.tr(" or %s", s[len(s)-1])
	}
	return c.tr(": did you mean %s?", list)
}

// frenchCompletion puts cobra's texts of the completion command and its
// subcommands in French.
func (c *cli) frenchCompletion(root *cobra.Command) {
	for _, cmd := range root.Commands() {
		if cmd.Name() != "completion" {
			continue
		}
		cmd.Long = fmt.Sprintf(frenchCompletionLong()[""], root.Name())
		for _, sub := range cmd.Commands() {
			if long, ok := frenchCompletionLong()[sub.Name()]; ok {
				sub.Long = fmt.Sprintf(long, root.Name())
			}
		}
	}
}
