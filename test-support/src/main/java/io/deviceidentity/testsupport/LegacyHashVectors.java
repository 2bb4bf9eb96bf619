package io.deviceidentity.testsupport;

/**
 * Hashes of other brokers' schemes, as their stores hold them, made by other tools than ours: what a
 * fleet migrated from EMQX or mosquitto-go-auth brings. Password {@value #PASSWORD}; salt {@value #SALT} (shaped like
 * an EMQX salt: 32 hex characters, used as text). Produced with:
 * <pre>
 * printf '%s' "$SALT$PW" | openssl dgst -sha256 -r         # EMQX sha256, salt_position prefix (its default)
 * printf '%s' "$PW$SALT" | openssl dgst -sha512 -r         # EMQX sha512, suffix
 * printf '%s' "$SALT$PW" | openssl dgst -sha1 -r  (-md5)    # EMQX sha (md5), prefix
 * printf '%s' "$PW" | openssl dgst -sha256 -r               # EMQX sha256, disable
 * python3: hashlib.pbkdf2_hmac('sha256', pw, salt, 4096).hex()       # EMQX pbkdf2, mac_fun sha256
 * python3: hashlib.pbkdf2_hmac('sha512', pw, salt, 1000, 20).hex()   # EMQX pbkdf2, sha512, dk_length 20
 *          (the same key as `openssl kdf -keylen 32 -kdfopt digest:SHA512 ... -kdfopt iter:1000 PBKDF2`)
 * python3: "PBKDF2$sha512$100000$" + b64(salt16) + "$" + b64(pbkdf2_hmac('sha512', pw, salt16, 100000, 32))
 * printf '%s' "$PW" | argon2 saltsaltsalt1234 -id -t 3 -k 4096 -p 2 -l 32 -e   # Debian's argon2 (reference C)
 * </pre>
 */
public final class LegacyHashVectors {

    public static final String PASSWORD = "correct-horse-7f3a";
    public static final String SALT = "a3f1c2e4b5d6978800112233445566aa";
    public static final String OTHER_SALT = "a3f1c2e4b5d6978800112233445566ab";

    public static final String SHA256_PREFIX = "7e8bf6fd5e103a18d3efd8f79385773b723819a10912528034a7fae0fb779b0c";
    public static final String SHA512_SUFFIX = "5d5c7cb48e0734e52d95c1ff345923cbd3893895c24d86cfa4bbf692bda2c787"
            + "92412948bce66758f297969a32bef84d4a0d748fde845bfbe9f5cc884d30762a";
    public static final String SHA1_PREFIX = "e9b13e338993e9d5a9382b0c72da84cf4bfbdaf1";
    public static final String MD5_PREFIX = "4824f96eb59e080e26469ec2b0f22d9b";
    public static final String SHA256_UNSALTED = "965be3c68ace4c0cc6f7714285b0db2033c1c88988d4e70fff54e5d476a64f10";
    public static final String EMQX_PBKDF2_SHA256_4096 =
            "6e61ba7dc3847f09427c341420fcf52bc6144547ee3c90406d03f55d308ea8d7";
    public static final String EMQX_PBKDF2_SHA512_1000_DK20 = "054d5944301ccc98620b0292d797411564e50041";
    public static final String MOSQUITTO_PBKDF2 =
            "PBKDF2$sha512$100000$Xwx6k+IdS2igw/nh0ntMVQ==$dvSfmSn4+NAEOSkv19NldKzExDp3FQmu8oV+s3D7hO8=";
    public static final String MOSQUITTO_PBKDF2_UTF8_SALT =
            "PBKDF2$sha256$1000$utf8saltvalue$MmpD3w+FeXxqAXpIUtXt+DMCUuh2SSFWwyoSKg1TCkw=";
    public static final String ARGON2ID =
            "$argon2id$v=19$m=4096,t=3,p=2$c2FsdHNhbHRzYWx0MTIzNA$Xfm1TYHjrFTxA4OD45mN6OD1FEHgmdITlN2SiG2L/gI";
    /**
     * Copied from mosquitto-go-auth's own test suite (iegomez/mosquitto-go-auth {@code hashing/hashing_test.go},
     * "PHC-SF-Spec"), made from the password {@code test-password}.
     */
    public static final String MOSQUITTO_PHC_FROM_ITS_TESTS =
            "$pbkdf2-sha512$i=10000,l=32$/DsNR8DBuoF/MxzLY+QVaw$YNfYNfT+6yT2blLrXKKR8Ll+aesgHYqSOtFTBsyscRM";

    private LegacyHashVectors() {
    }
}
