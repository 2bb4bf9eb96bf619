/*
 * The image's CPU check (com.oracle.svm.core.amd64.AMD64LibCHelper, AMD64CPUFeatureAccess): before anything else
 * runs, the image compares the CPU it finds with the features it was compiled for (-march, x86-64-v3 by default) and
 * refuses to start on a CPU that lacks one, instead of dying later on an illegal instruction.
 *
 * determineCPUFeatures fills one char per feature (include/amd64cpufeatures.h, in the builder's declaration order)
 * from CPUID, the way HotSpot's vm_version_x86 reads them: a feature that needs operating-system support for its
 * registers (AVX, AVX-512, APX) counts only when XCR0 says the kernel saves those registers.
 *
 * checkCPUFeatures compares with the build-time mask the builder stores in the image: the CPUFeatures struct of the
 * build-time features, *bitwise negated*, padded to a multiple of 64 bits with all-ones bytes
 * (CPUFeatureAccessImpl.BUILDTIME_CPU_FEATURE_MASK, CPUFeatureAccessFeatureBase): a feature the image needs is the
 * byte ~1 there, every other byte 0xff. Present features are the byte 1 here, so "runtime | mask" is all ones
 * exactly when every needed feature is present.
 */
#include <cpuid.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "amd64cpufeatures.h"

#define BIT(reg, n) ((char) (((reg) >> (n)) & 1u))

static void cpuid(unsigned leaf, unsigned subleaf, unsigned regs[4]) {
    __cpuid_count(leaf, subleaf, regs[0], regs[1], regs[2], regs[3]);
}

/* The state components the kernel saves on context switch (XCR0); 0 when XGETBV is not enabled (no OSXSAVE). */
static uint64_t xcr0(unsigned leaf1_ecx) {
    if (!BIT(leaf1_ecx, 27)) {
        return 0;
    }
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t) hi << 32) | lo;
}

/*
 * SMT threads per core, as HotSpot counts them: AMD's extended topology leaf (0x8000001E) where it exists, else the
 * topology leaf 0xB (level type 1 is SMT), else the legacy HTT bit with the logical processor count.
 */
static unsigned threads_per_core(unsigned max, unsigned max_ext, const unsigned r1[4]) {
    unsigned r[4];
    cpuid(0, 0, r);
    if (r[1] == 0x68747541 /* "Auth"enticAMD */ && max_ext >= 0x8000001eu) {
        cpuid(0x8000001eu, 0, r);
        return ((r[1] >> 8) & 0xff) + 1;
    }
    if (max >= 0xb) {
        cpuid(0xb, 0, r);
        if (((r[2] >> 8) & 0xff) == 1) {
            return r[1] & 0xffff;
        }
    }
    return BIT(r1[3], 28) ? (r1[1] >> 16) & 0xff : 1;
}

void determineCPUFeatures(CPUFeatures *f) {
    unsigned r1[4] = {0}, r7[4] = {0}, r71[4] = {0}, e1[4] = {0}, e7[4] = {0}, r24[4] = {0};
    unsigned max = __get_cpuid_max(0, NULL);
    unsigned max_ext = __get_cpuid_max(0x80000000u, NULL);
    memset(f, 0, sizeof(*f));
    if (max < 1) {
        return;
    }
    cpuid(1, 0, r1);
    if (max >= 7) {
        cpuid(7, 0, r7);
        if (r7[0] >= 1) {
            cpuid(7, 1, r71);
        }
    }
    if (max_ext >= 0x80000001u) {
        cpuid(0x80000001u, 0, e1);
    }
    if (max_ext >= 0x80000007u) {
        cpuid(0x80000007u, 0, e7);
    }
    enum { EAX, EBX, ECX, EDX };
    uint64_t os = xcr0(r1[ECX]);
    int avx_os = (os & 0x6) == 0x6;        /* XMM and YMM state */
    int avx512_os = (os & 0xe6) == 0xe6;   /* and opmask, ZMM_Hi256, Hi16_ZMM */
    int apx_os = (os & (1u << 19)) != 0;   /* extended GPRs */

    f->fTSC = BIT(r1[EDX], 4);
    f->fCX8 = BIT(r1[EDX], 8);
    f->fCMOV = BIT(r1[EDX], 15);
    f->fFLUSH = BIT(r1[EDX], 19);
    f->fMMX = BIT(r1[EDX], 23);
    f->fFXSR = BIT(r1[EDX], 24);
    f->fSSE = BIT(r1[EDX], 25);
    f->fSSE2 = BIT(r1[EDX], 26);
    f->fHT = threads_per_core(max, max_ext, r1) > 1;
    f->fSSE3 = BIT(r1[ECX], 0);
    f->fCLMUL = BIT(r1[ECX], 1);
    f->fSSSE3 = BIT(r1[ECX], 9);
    f->fSSE4_1 = BIT(r1[ECX], 19);
    f->fSSE4_2 = BIT(r1[ECX], 20);
    f->fPOPCNT = BIT(r1[ECX], 23);
    f->fAES = BIT(r1[ECX], 25);
    f->fHV = BIT(r1[ECX], 31);
    if (avx_os && BIT(r1[ECX], 28)) {
        f->fAVX = 1;
        f->fVZEROUPPER = 1; /* HotSpot's pseudo-feature: vzeroupper is available wherever AVX is */
        f->fFMA = BIT(r1[ECX], 12);
        f->fF16C = BIT(r1[ECX], 29);
        f->fAVX2 = BIT(r7[EBX], 5);
        f->fAVX_IFMA = BIT(r71[EAX], 23);
        f->fSHA512 = BIT(r71[EAX], 0);
        if (avx512_os && BIT(r7[EBX], 16)) {
            f->fAVX512F = 1;
            f->fAVX512DQ = BIT(r7[EBX], 17);
            f->fAVX512_IFMA = BIT(r7[EBX], 21);
            f->fAVX512PF = BIT(r7[EBX], 26);
            f->fAVX512ER = BIT(r7[EBX], 27);
            f->fAVX512CD = BIT(r7[EBX], 28);
            f->fAVX512BW = BIT(r7[EBX], 30);
            f->fAVX512VL = BIT(r7[EBX], 31);
            f->fAVX512_VBMI = BIT(r7[ECX], 1);
            f->fAVX512_VBMI2 = BIT(r7[ECX], 6);
            f->fAVX512_VAES = BIT(r7[ECX], 9);
            f->fAVX512_VPCLMULQDQ = BIT(r7[ECX], 10);
            f->fAVX512_VNNI = BIT(r7[ECX], 11);
            f->fAVX512_BITALG = BIT(r7[ECX], 12);
            f->fAVX512_VPOPCNTDQ = BIT(r7[ECX], 14);
            f->fAVX512_FP16 = BIT(r7[EDX], 23);
        }
        if (avx512_os && BIT(r71[EDX], 19) && max >= 0x24) {
            cpuid(0x24, 0, r24);
            unsigned version = r24[EBX] & 0xff;
            f->fAVX10_1 = version >= 1;
            f->fAVX10_2 = version >= 2;
        }
    }
    f->fBMI1 = BIT(r7[EBX], 3);
    f->fBMI2 = BIT(r7[EBX], 8);
    f->fERMS = BIT(r7[EBX], 9);
    f->fRTM = BIT(r7[EBX], 11);
    f->fADX = BIT(r7[EBX], 19);
    f->fFLUSHOPT = BIT(r7[EBX], 23);
    f->fCLWB = BIT(r7[EBX], 24);
    f->fSHA = BIT(r7[EBX], 29);
    f->fPKU = BIT(r7[ECX], 3);
    f->fOSPKE = BIT(r7[ECX], 4);
    f->fCET_SS = BIT(r7[ECX], 7);
    f->fGFNI = BIT(r7[ECX], 8);
    f->fRDPID = BIT(r7[ECX], 22);
    f->fFSRM = BIT(r7[EDX], 4);
    f->fSERIALIZE = BIT(r7[EDX], 14);
    f->fCET_IBT = BIT(r7[EDX], 20);
    f->fAPX_F = apx_os && BIT(r71[EDX], 21);
    f->fLZCNT = BIT(e1[ECX], 5);
    f->fSSE4A = BIT(e1[ECX], 6);
    f->fAMD_3DNOW_PREFETCH = BIT(e1[ECX], 8);
    f->fRDTSCP = BIT(e1[EDX], 27);
    f->fTSCINV_BIT = BIT(e7[EDX], 8);
    /* fTSCINV stays 0: HotSpot derives "invariant TSC usable" later from the vendor and family, not from CPUID
     * alone, and no -march level requires it. */
}

/* The struct rounded up to whole 64-bit words, as the builder sizes the mask. */
#define MASK_WORDS ((sizeof(CPUFeatures) + 7) / 8)

int checkCPUFeatures(unsigned char *buildtimeFeatureMask) {
    uint64_t runtime[MASK_WORDS];
    memset(runtime, 0, sizeof(runtime));
    determineCPUFeatures((CPUFeatures *) runtime);
    for (size_t i = 0; i < MASK_WORDS; i++) {
        uint64_t mask;
        memcpy(&mask, buildtimeFeatureMask + 8 * i, sizeof(mask));
        if ((runtime[i] | mask) != UINT64_MAX) {
            return 1;
        }
    }
    return 0;
}

int checkCPUFeaturesOrExit(unsigned char *buildtimeFeatureMask, const char *errorMessage) {
    int result = checkCPUFeatures(buildtimeFeatureMask);
    if (result != 0) {
        fputs(errorMessage, stderr);
        exit(1);
    }
    return result;
}
