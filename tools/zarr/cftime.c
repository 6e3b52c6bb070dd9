/* cftime.c -- see cftime.h. Day numbers: the Gregorian and Julian calendars (and so the
 * standard one) share one count, days since 1970-01-01 (Gregorian), so that a Julian and a
 * Gregorian date of the same day have the same number; the other calendars count days
 * from their own year 0, month 1, day 1. */
#define _XOPEN_SOURCE 700
#include "cftime.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define US_PER_DAY INT64_C(86400000000)

static int64_t floor_div(int64_t a, int64_t b) { return a / b - (a % b != 0 && (a < 0) != (b < 0)); }

/* ---- Gregorian and Julian day numbers (March-based years, as in H. Hinnant's algorithms) */

static int64_t days_from_gregorian(int64_t y, int m, int d) {
    int64_t era, yoe, doy, doe;
    y -= m <= 2;
    era = floor_div(y, 400);
    yoe = y - era * 400;
    doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static void gregorian_from_days(int64_t z, int64_t *y, int *m, int *d) {
    int64_t era, doe, yoe, doy, mp;
    z += 719468;
    era = floor_div(z, 146097);
    doe = z - era * 146097;
    yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = yoe + era * 400 + (*m <= 2);
}

/* Julian day numbers before the shift to the shared count. */
static int64_t julian_raw(int64_t y, int m, int d) {
    int64_t era, yoe, doy;
    y -= m <= 2;
    era = floor_div(y, 4);
    yoe = y - era * 4;
    doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    return era * 1461 + yoe * 365 + doy;
}

/* Julian 1582-10-04 is the day before Gregorian 1582-10-15. */
static int64_t julian_shift(void) { return days_from_gregorian(1582, 10, 14) - julian_raw(1582, 10, 4); }

static int64_t days_from_julian(int64_t y, int m, int d) { return julian_raw(y, m, d) + julian_shift(); }

static void julian_from_days(int64_t z, int64_t *y, int *m, int *d) {
    int64_t era, doe, yoe, doy, mp;
    z -= julian_shift();
    era = floor_div(z, 1461);
    doe = z - era * 1461;
    yoe = (doe - doe / 1460) / 365;
    doy = doe - 365 * yoe;
    mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = yoe + era * 4 + (*m <= 2);
}

/* ---- the calendars ------------------------------------------------------------------------ */

static const int cum_noleap[13] = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365};
static const int cum_leap[13] = {0, 31, 60, 91, 121, 152, 182, 213, 244, 274, 305, 335, 366};

static int gregorian_leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }
static int julian_leap(int64_t y) { return y % 4 == 0; }

static int month_length(cf_calendar c, int64_t y, int m) {
    int leap;
    switch (c) {
    case CFCAL_360_DAY: return 30;
    case CFCAL_NOLEAP: leap = 0; break;
    case CFCAL_ALL_LEAP: leap = 1; break;
    case CFCAL_JULIAN: leap = julian_leap(y); break;
    case CFCAL_PROLEPTIC_GREGORIAN: leap = gregorian_leap(y); break;
    default: leap = y < 1582 ? julian_leap(y) : y > 1582 ? gregorian_leap(y) : 0; break;
    }
    return leap ? cum_leap[m] - cum_leap[m - 1] : cum_noleap[m] - cum_noleap[m - 1];
}

/* Compare (y, m, d) with (y2, m2, d2). */
static int date_cmp(int64_t y, int m, int d, int64_t y2, int m2, int d2) {
    if (y != y2) return y < y2 ? -1 : 1;
    if (m != m2) return m < m2 ? -1 : 1;
    return d < d2 ? -1 : d > d2;
}

/* The day number of a date; 0 when the date does not exist in the calendar. */
static int day_number(cf_calendar c, int64_t y, int m, int d, int64_t *out) {
    if (m < 1 || m > 12 || d < 1 || d > month_length(c, y, m)) return 0;
    switch (c) {
    case CFCAL_360_DAY: *out = y * 360 + (m - 1) * 30 + d - 1; break;
    case CFCAL_NOLEAP: *out = y * 365 + cum_noleap[m - 1] + d - 1; break;
    case CFCAL_ALL_LEAP: *out = y * 366 + cum_leap[m - 1] + d - 1; break;
    case CFCAL_JULIAN: *out = days_from_julian(y, m, d); break;
    case CFCAL_PROLEPTIC_GREGORIAN: *out = days_from_gregorian(y, m, d); break;
    default:
        if (date_cmp(y, m, d, 1582, 10, 15) >= 0) *out = days_from_gregorian(y, m, d);
        else if (date_cmp(y, m, d, 1582, 10, 5) < 0) *out = days_from_julian(y, m, d);
        else return 0; /* 1582-10-05 to 1582-10-14 were skipped */
    }
    return 1;
}

static void date_of(cf_calendar c, int64_t n, int64_t *y, int *m, int *d) {
    const int *cum;
    int64_t r;
    int year_len;
    switch (c) {
    case CFCAL_360_DAY:
        *y = floor_div(n, 360);
        r = n - *y * 360;
        *m = (int)(r / 30) + 1;
        *d = (int)(r % 30) + 1;
        return;
    case CFCAL_NOLEAP:
    case CFCAL_ALL_LEAP:
        year_len = c == CFCAL_NOLEAP ? 365 : 366;
        cum = c == CFCAL_NOLEAP ? cum_noleap : cum_leap;
        *y = floor_div(n, year_len);
        r = n - *y * year_len;
        for (*m = 1; r >= cum[*m]; (*m)++) {
        }
        *d = (int)(r - cum[*m - 1]) + 1;
        return;
    case CFCAL_JULIAN: julian_from_days(n, y, m, d); return;
    case CFCAL_PROLEPTIC_GREGORIAN: gregorian_from_days(n, y, m, d); return;
    default:
        if (n >= days_from_gregorian(1582, 10, 15)) gregorian_from_days(n, y, m, d);
        else julian_from_days(n, y, m, d);
    }
}

/* ---- parsing ------------------------------------------------------------------------------- */

static const struct {
    const char *name;
    int64_t us;
} time_units[] = {
    {"weeks", 7 * US_PER_DAY}, {"week", 7 * US_PER_DAY},
    {"days", US_PER_DAY}, {"day", US_PER_DAY}, {"d", US_PER_DAY},
    {"hours", INT64_C(3600000000)}, {"hour", INT64_C(3600000000)}, {"hr", INT64_C(3600000000)},
    {"h", INT64_C(3600000000)},
    {"minutes", 60000000}, {"minute", 60000000}, {"min", 60000000},
    {"seconds", 1000000}, {"second", 1000000}, {"sec", 1000000}, {"s", 1000000},
    {"milliseconds", 1000}, {"millisecond", 1000}, {"msec", 1000}, {"ms", 1000},
    {"microseconds", 1}, {"microsecond", 1}, {"usec", 1}, {"us", 1},
};

static const struct {
    const char *name;
    cf_calendar calendar;
} calendars[] = {
    {"standard", CFCAL_STANDARD}, {"gregorian", CFCAL_STANDARD},
    {"proleptic_gregorian", CFCAL_PROLEPTIC_GREGORIAN}, {"julian", CFCAL_JULIAN},
    {"noleap", CFCAL_NOLEAP}, {"365_day", CFCAL_NOLEAP},
    {"all_leap", CFCAL_ALL_LEAP}, {"366_day", CFCAL_ALL_LEAP},
    {"360_day", CFCAL_360_DAY},
};

/* An unsigned decimal integer of at most `max` digits (0: any, up to 12). */
static int read_int(const char **s, int max, int64_t *out) {
    int n = 0;
    *out = 0;
    while (isdigit((unsigned char)**s) && (max == 0 || n < max) && n < 12) {
        *out = *out * 10 + (**s - '0');
        (*s)++;
        n++;
    }
    return n > 0;
}

static void skip_space(const char **s) {
    while (**s == ' ' || **s == '\t') (*s)++;
}

/* A time zone after the date and time: nothing, Z, UTC, or [+-]H[H][[:]MM]. Sets *offset_us
 * (east of UTC positive). */
static int read_zone(const char **s, int64_t *offset_us) {
    int64_t h, m = 0;
    int sign;
    *offset_us = 0;
    skip_space(s);
    if (**s == 'Z') {
        (*s)++;
        return 1;
    }
    if (!strncasecmp(*s, "UTC", 3) || !strncasecmp(*s, "GMT", 3)) {
        *s += 3;
        if (**s != '+' && **s != '-') return 1;
    }
    if (**s != '+' && **s != '-') return **s == '\0';
    sign = **s == '-' ? -1 : 1;
    (*s)++;
    if (isdigit((unsigned char)(*s)[0]) && isdigit((unsigned char)(*s)[1]) && isdigit((unsigned char)(*s)[2])) {
        /* +HHMM */
        if (!read_int(s, 2, &h) || !read_int(s, 2, &m)) return 0;
    } else {
        if (!read_int(s, 2, &h)) return 0;
        if (**s == ':' && !(++*s, read_int(s, 2, &m))) return 0;
    }
    if (h > 23 || m > 59) return 0;
    *offset_us = sign * (h * 3600 + m * 60) * INT64_C(1000000);
    return 1;
}

int cftime_parse(const char *units, const char *calendar, cf_time *out, char *why, size_t why_len) {
    const char *s = units, *word, *p, *q;
    size_t word_len, i;
    int64_t y, mo, d, h = 0, mi = 0, zone;
    double sec = 0;
    int negative = 0;
    memset(out, 0, sizeof *out);
    if (why_len) why[0] = '\0';
    /* "<word> since <date>" */
    skip_space(&s);
    word = s;
    while (*s && *s != ' ' && *s != '\t') s++;
    word_len = (size_t)(s - word);
    skip_space(&s);
    if (word_len == 0 || strncasecmp(s, "since", 5) != 0 || (s[5] != ' ' && s[5] != '\t')) return CFTIME_NOT_TIME;
    s += 5;
    skip_space(&s);
    for (i = 0; i < sizeof time_units / sizeof time_units[0]; i++)
        if (strlen(time_units[i].name) == word_len && !strncasecmp(word, time_units[i].name, word_len)) break;
    if (i == sizeof time_units / sizeof time_units[0]) {
        snprintf(why, why_len, "the unit '%.*s' is not supported (weeks, days, hours, minutes, seconds, "
                 "milliseconds and microseconds are)", (int)(word_len > 40 ? 40 : word_len), word);
        return CFTIME_UNSUPPORTED;
    }
    out->unit_us = time_units[i].us;
    if (!calendar) {
        out->calendar = CFCAL_STANDARD;
    } else {
        for (i = 0; i < sizeof calendars / sizeof calendars[0]; i++)
            if (!strcasecmp(calendar, calendars[i].name)) break;
        if (i == sizeof calendars / sizeof calendars[0]) {
            snprintf(why, why_len, "the calendar '%.40s' is not supported", calendar);
            return CFTIME_UNSUPPORTED;
        }
        out->calendar = calendars[i].calendar;
    }
    /* Y-M-D */
    p = s;
    if (*s == '-' || *s == '+') negative = *s++ == '-';
    if (!read_int(&s, 0, &y) || *s++ != '-' || !read_int(&s, 2, &mo) || *s++ != '-' || !read_int(&s, 2, &d))
        goto bad_date;
    if (negative) y = -y;
    /* [ T]H:M[:S[.f]] */
    q = s;
    if (*q == 'T') q++;
    else skip_space(&q);
    if (q != s && isdigit((unsigned char)*q)) {
        s = q;
        if (!read_int(&s, 2, &h) || *s++ != ':' || !read_int(&s, 2, &mi)) goto bad_date;
        if (*s == ':') {
            char *end;
            s++;
            if (!isdigit((unsigned char)*s)) goto bad_date;
            sec = strtod(s, &end);
            s = end;
        }
        if (h > 23 || mi > 59 || !(sec >= 0 && sec < 61)) goto bad_date;
    }
    if (!read_zone(&s, &zone)) goto bad_date;
    skip_space(&s);
    if (*s) goto bad_date;
    if (!day_number(out->calendar, y, (int)mo, (int)d, &out->epoch_day)) {
        snprintf(why, why_len, "the date '%.40s' does not exist in the %s calendar", p,
                 calendar ? calendar : "standard");
        return CFTIME_UNSUPPORTED;
    }
    out->epoch_us = (h * 3600 + mi * 60) * INT64_C(1000000) + (int64_t)llround(sec * 1e6) - zone;
    /* a time zone may move the reference into the day before or after */
    out->epoch_day += floor_div(out->epoch_us, US_PER_DAY);
    out->epoch_us -= floor_div(out->epoch_us, US_PER_DAY) * US_PER_DAY;
    return CFTIME_OK;
bad_date:
    snprintf(why, why_len, "the reference date '%.40s' is not a date (Y-M-D [H:M[:S]] [time zone])", p);
    return CFTIME_UNSUPPORTED;
}

/* ---- formatting ---------------------------------------------------------------------------- */

const char *cftime_format(const cf_time *t, double value, char *buf, size_t len) {
    double total = value * (double)t->unit_us;
    int64_t us, days, tod, y;
    int m, d;
    char year[24];
    /* +-2^62 microseconds: about 146000 years either way, far beyond any time axis, and no
     * overflow in what follows */
    if (!isfinite(total) || fabs(total) > 4.6e18) return NULL;
    us = (int64_t)llround(total) + t->epoch_us;
    days = floor_div(us, US_PER_DAY);
    tod = us - days * US_PER_DAY;
    date_of(t->calendar, t->epoch_day + days, &y, &m, &d);
    if (y < 0) snprintf(year, sizeof year, "-%04lld", (long long)-y);
    else if (y > 9999) snprintf(year, sizeof year, "+%lld", (long long)y);
    else snprintf(year, sizeof year, "%04lld", (long long)y);
    snprintf(buf, len, "%s-%02d-%02dT%02d:%02d:%02d", year, m, d, (int)(tod / INT64_C(3600000000)),
             (int)(tod / 60000000 % 60), (int)(tod / 1000000 % 60));
    if (tod % 1000000) {
        size_t n = strlen(buf);
        if (tod % 1000 == 0) snprintf(buf + n, len - n, ".%03d", (int)(tod % 1000000 / 1000));
        else snprintf(buf + n, len - n, ".%06d", (int)(tod % 1000000));
    }
    return buf;
}
