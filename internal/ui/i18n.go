package ui

import (
	"embed"
	"os"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/lang"

	"vegas-desk/internal/platform"
)

// The app's strings are written in English in the source and translated by
// translations/fr.json; French is the default language.
//
//go:embed translations
var translations embed.FS

// Languages the app offers, by code, with their names.
var languages = []struct{ Code, Name string }{{"fr", "Français"}, {"en", "English"}}

// setLanguage makes code ("fr" or "en") the language of lang.L. Fyne picks
// the language from the environment's locale, so the locale variables are
// set for this process before the translations are (re)loaded.
func setLanguage(code string) {
	locale := "fr_FR.UTF-8"
	if code == "en" {
		locale = "en_GB.UTF-8"
	} else {
		code = "fr"
	}
	os.Setenv("LANGUAGE", code)
	os.Setenv("LC_ALL", locale)
	os.Setenv("LC_MESSAGES", locale)
	os.Setenv("LANG", locale)
	if err := lang.AddTranslationsFS(translations, "translations"); err != nil {
		fyne.LogError("load translations", err)
	}
	followChoice(code)
}

// defaultLanguage is the app's language until one is chosen in Réglages:
// the system's where it says one (Windows: its locale, French for fr-FR,
// fr-BE…, English for any other), else French.
func defaultLanguage() string {
	if l := platform.Language(); l != "" {
		return l
	}
	return "fr"
}

// overridesSystem reports whether the language chosen (code) must be put
// in the place of the system's (system, "" when the system says none): on
// Windows, where Fyne reads the locale from Windows itself and not from
// the variables setLanguage sets, when the two differ.
func overridesSystem(code, system string) bool { return system != "" && code != system }
