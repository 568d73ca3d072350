package ui

import (
	"embed"
	"os"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/lang"
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
}
