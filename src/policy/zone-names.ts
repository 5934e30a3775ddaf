/**
 * IANA time zone names that the runtime's Intl answers under another name (its canonical one:
 * `US/Eastern` is `America/New_York` to it, `Asia/Kolkata` is `Asia/Calcutta`), and IANA's links,
 * written as IANA writes them (tzdata 2025b). Intl reads a zone in any case and gives back only
 * the canonical spelling, so these are the spellings it cannot tell: zone.ts checks a name's case
 * against them, against Intl's own list and against Intl's answer.
 */
export const IANA_LINK_NAMES: ReadonlySet<string> = new Set(
  `
Africa/Asmara Africa/Asmera Africa/Timbuktu America/Argentina/Buenos_Aires
America/Argentina/Catamarca America/Argentina/ComodRivadavia America/Argentina/Cordoba
America/Argentina/Jujuy America/Argentina/Mendoza America/Atikokan America/Atka
America/Buenos_Aires America/Catamarca America/Coral_Harbour America/Cordoba
America/Ensenada America/Fort_Wayne America/Godthab America/Indiana/Indianapolis
America/Indianapolis America/Jujuy America/Kentucky/Louisville America/Knox_IN
America/Kralendijk America/Louisville America/Lower_Princes America/Marigot America/Mendoza
America/Montreal America/Nipigon America/Nuuk America/Pangnirtung America/Porto_Acre
America/Rainy_River America/Rosario America/Santa_Isabel America/Shiprock
America/St_Barthelemy America/Thunder_Bay America/Virgin America/Yellowknife
Antarctica/South_Pole Arctic/Longyearbyen Asia/Ashkhabad Asia/Calcutta Asia/Choibalsan
Asia/Chongqing Asia/Chungking Asia/Dacca Asia/Harbin Asia/Ho_Chi_Minh Asia/Istanbul
Asia/Kashgar Asia/Kathmandu Asia/Katmandu Asia/Kolkata Asia/Macao Asia/Rangoon Asia/Saigon
Asia/Tel_Aviv Asia/Thimbu Asia/Ujung_Pandang Asia/Ulan_Bator Asia/Yangon Atlantic/Faeroe
Atlantic/Faroe Atlantic/Jan_Mayen Australia/ACT Australia/Canberra Australia/Currie
Australia/LHI Australia/NSW Australia/North Australia/Queensland Australia/South
Australia/Tasmania Australia/Victoria Australia/West Australia/Yancowinna Brazil/Acre
Brazil/DeNoronha Brazil/East Brazil/West Canada/Atlantic Canada/Central Canada/Eastern
Canada/Mountain Canada/Newfoundland Canada/Pacific Canada/Saskatchewan Canada/Yukon
Chile/Continental Chile/EasterIsland Etc/GMT Etc/GMT+0 Etc/GMT-0 Etc/GMT0 Etc/Greenwich
Etc/UCT Etc/UTC Etc/Universal Etc/Zulu Europe/Belfast Europe/Bratislava Europe/Busingen
Europe/Kiev Europe/Kyiv Europe/Mariehamn Europe/Nicosia Europe/Podgorica Europe/San_Marino
Europe/Tiraspol Europe/Uzhgorod Europe/Vatican Europe/Zaporozhye Mexico/BajaNorte
Mexico/BajaSur Mexico/General Pacific/Chuuk Pacific/Enderbury Pacific/Johnston
Pacific/Kanton Pacific/Pohnpei Pacific/Ponape Pacific/Samoa Pacific/Truk Pacific/Yap
US/Alaska US/Aleutian US/Arizona US/Central US/East-Indiana US/Eastern US/Hawaii
US/Indiana-Starke US/Michigan US/Mountain US/Pacific US/Samoa
`
    .trim()
    .split(/\s+/),
);
